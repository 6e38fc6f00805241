"""What a question asks for, and whether a text gives it: the forms the cited-answer core (cited_answer.py)
reads a question by.

`asked_for` names the kind of answer a question's form asks for: a year or date for "when", an amount of money for
"how much did X pay/cost…", a number for "how many/much/long…" or a measure ("At what speed …?"), a frequency for
"how often", a name for "who", a place for "where". `answer_shape` says whether a sentence has it (`has_kind`: a
capitalised word after the first, or a first word the texts use as a name, `known_names`), and, for any question,
words the question does not already have. Sentences that merely repeat the question's words rank below those that
add to them. `may_give` is the lenient form an answer is checked with before it is said to lack the kind asked for.
`pinpoints` (a text that states the answer the way the question asks for it, for the cited-answer core) reads:
`counted_noun`/`counted_words` (what "how many N" counts), `asks_name`/`gives_name` (a name given by a naming
word), `says_who` (a role or name doing what a "who" question says), `asks_what_is_needed`/
`lists_what_is_needed`, cues.speaker_asked/cues.reports_speech_of (for "What did X say about Y?" or "What did X
find?", a text that reports X's words or findings: "…, Zuckerberg said at the trial"), `asks_use`/`gives_use`
("What is X used for?") and abbreviations.expands ("What does AFC stand for?").
`definition_subject`/`is_definition`: X of "what is X?" (or of "who is X?" for a name X), and a text that
defines X. For "where", a name is a place after a word of place (`_PLACED`: "in 15th century Europe").
"""
from __future__ import annotations

import re

from App_Function_Libraries.Retrieval.abbreviations import expands
from App_Function_Libraries.Retrieval.bm25 import STOPWORDS, tokenize
from App_Function_Libraries.Retrieval.cues import NO_DOER, reports_speech_of, speaker_asked, word_tokens
from App_Function_Libraries.Retrieval.quotable import LIST_NUMBER, fold, stem


#: a year ("1998", "the 1990s", "c1750", "ca. 1500", "by 2100") or a century
_YEAR = re.compile(r"\b(?:c\.?\s?|ca\.\s?)?(?:1[0-9]{3}|2[01][0-9]{2})s?\b|\b\d{1,2}(?:st|nd|rd|th)\s+century\b|"
                   r"\bcentury\b", re.I)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH = re.compile(rf"\b(?:{_MONTHS})\b")
_WEEKDAYS = "(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
_WEEKDAY = re.compile(rf"\b{_WEEKDAYS}\b")  # news dates by weekday: "on Tuesday"
_DATE = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b(?:,?\s+\d{{4}})?|"
                   rf"\b(?:{_MONTHS})(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?\b|"
                   r"\b(?:in|on|since|by|until|till|from|during|circa|of|before|after)\s+(?:the\s+)?"
                   r"(?:1[0-9]{3}|20[0-9]{2})s?\b", re.I)
_NUMBER = re.compile(r"\b\d[\d,.]*\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half)\b", re.I)
#: how often something happens: "every day", "daily", "twice a week", "three times a year", "once per hour"
_FREQUENCY = re.compile(r"\b(?:every|each|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually|"
                        r"hourly|once|twice|thrice|(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|many|"
                        r"few|a few) times|per (?:second|minute|hour|day|night|week|month|year))\b", re.I)
#: the verbs a question puts right after its question word: "What are …", "How much did …", "When was …"
AUX = "is|are|was|were|do|does|did|can|could|will|would|should|shall|may|might|must|has|have|had"
#: the small words inside a person's name: "Karl von Frisch", "Luis de Miranda"
NAME_PARTICLES = "von|van|de|der|den|da|di|du|al|bin|le|la"
#: "how much" asked of money: "How much did Facebook pay for Instagram?", "How much does it cost?", "How much money
#: did they raise?", "What is the price of …?", "How expensive is …?" (not "How much time did they spend?": a
#: noun after "how much" other than money says what is measured)
_ASKS_MONEY = re.compile(r"\bhow\s+expensive\b|\bhow\s+much\s+(?:money|cash|funding|revenue|profit|income)\b|"
                         rf"\bhow\s+much\s+(?:{AUX})\b"
                         r"[^?]*?\b(?:pay|paid|pays|cost|costs|spend|spends|spent|charged?|charges|earn|earns|earned|"
                         r"make|makes|made|raised?|raises|sell|sells|sold|buy|buys|bought|invest|invests|invested|"
                         r"owed?|owes|worth|grossed|donated?)\b|"
                         r"\bwhat\s+(?:is|was|are|were|will\s+be)\s+the\s+(?:price|cost|fee|fare|salary)s?\b", re.I)
_CURRENCY = (r"dollars?|euros?|pounds?|pence|sterling|yen|yuan|rupees?|cents?|francs?|pesos?|pesetas?|lira|lire|"
             r"rubles?|roubles?|shillings?|krona|krone|kronor|rand|guilders?|florins?|ducats?|dinars?|dirhams?|"
             r"riyals?|rials?|baht|livres?|usd|eur|gbp")
#: an amount of money: "$1 billion", "US$35", "€3.5m", "10 euros", "two million dollars" (a figure is tried from its
#: start only)
_MONEY = re.compile(rf"(?<![\w$€£¥₹])[A-Z]{{0,2}}[$€£¥₹]\s?\d|"
                    rf"(?<![\d,.])\b\d[\d,.]*\s*(?:(?:thousand|million|billion|trillion|bn|m|k)\s*)?(?:{_CURRENCY})\b|"
                    rf"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|"
                    rf"thousand|million|billion|trillion)\s+(?:{_CURRENCY})\b", re.I)
#: a measure a question asks for as a number: "At what speed …?", "What is the population of …?" (not "area",
#: which is as often a region: "What area did the broadcast cover?")
_MEASURE = (r"(?:speed|velocity|temperature|age|height|depth|distance|length|width|weight|mass|population|"
            r"rate|pressure|altitude|elevation|diameter|radius|volume|capacity|score|density|wavelength|"
            r"voltage|magnitude|lifespan|life expectancy|budget|salary)")
_QUANTITY = (r"(?:average|mean|median|total|estimated|approximate|final|top|maximum|minimum|recorded|accepted|land|"
             r"mortality|death|birth|growth|unemployment|interest|inflation|literacy|crime|survival|infection|"
             r"poverty|exchange|tax|heart|fertility|turnout|approval)")  # "the mortality rate of …"
_ASKS = (
    ("money", _ASKS_MONEY),
    ("when", re.compile(r"^\s*(?:when\b|(?:which|what) (?:period|era))|"
                        r"\b(?:what|which) (?:year|decade|century|date|day|month)s?\b", re.I)),
    ("often", re.compile(r"\bhow (?:often|frequently)\b|\bat what (?:interval|frequency)\b", re.I)),
    ("number", re.compile(r"\bhow (?:many|much|long|far|old|large|big|high|tall|deep|fast|wide|thick|heavy|hot|"
                          r"cold)\b|"
                          r"\bwhat (?:percentage|percent|number|amount|proportion|fraction)\b|"
                          rf"\b(?:at|to|up\s+to) what {_MEASURE}\b|^\W*what {_MEASURE} (?:{AUX})\b|"
                          rf"^\W*what (?:is|was|are|were) (?:the|its|their) (?:{_QUANTITY} )?(?:{_MEASURE}|area) "
                          r"(?:of|in|for)\b",
                          re.I)),
    ("who", re.compile(rf"^\s*(?:who|whom|whose)\b|\b(?:which|what) (?:(?!(?:{AUX})\b)\w+ )?(?:person|man|woman|people|king|"
                       r"queen|emperor|president|leader|author|writer|artist|composer|architect|engineer|player|"
                       r"company|team|group|band|party|family|dynasty|organi[sz]ation|\w+ist|\w+ian)s?\b", re.I)),
    ("where", re.compile(r"^\s*where\b|\bin (?:what|which) (?:city|country|state|region|place|town)\b", re.I)),
)


#: a question opening with a "when" clause that asks something else: "When a cell eats a pathogen, what does it
#: become?", "When rock buckles upwards it creates what?" (group 1: what it asks)
#: (a "when" question puts a verb after "when": "When did …", "When was …")
_WHEN_CLAUSE = re.compile(rf"^\s*when\s+(?!(?:{AUX})\b).*?\b((?:what|who|whom|whose|which|where|how|why)\b.*)$",
                          re.IGNORECASE)


#: "When should you wash your hands?", "When do I water a cactus?": asks in which circumstances, not for a date
_WHEN_ADVISED = re.compile(r"^\s*when\s+(?:should|do|does|can|could|must|would|ought)\s+(?:i|you|we|one|people|"
                           r"someone|they)\b", re.IGNORECASE)


def asked_for(question: str) -> str:
    """'when', 'often', 'money', 'number', 'who', 'where', or '' when the question's form does not say (nor for "when
    should you …", which asks in which circumstances, not for a date)."""
    if _WHEN_ADVISED.match(question):
        return ""
    clause = _WHEN_CLAUSE.match(question)
    if clause:
        question = clause.group(1)
    for kind, pattern in _ASKS:
        if pattern.search(question):
            return kind
    return ""


_COUNTED = re.compile(r"\bhow\s+(?:many|much)\s+(.*)", re.IGNORECASE)
#: where the counted phrase of "how many …" ends: a verb, a preposition, a conjunction, the unit of a rate ("how
#: many tasks per second", "how many times a day")
_COUNTED_END = frozenset("""did does do is are was were has have had can could will would should may might must
of in on at for from by with to that there and or per a an every each""".split())
COUNTED_PHRASE = 5  # words at most
_ASKS_NAME = re.compile(r"\b(?:names?|named|call|called|known\s+as|term)\b", re.IGNORECASE)
#: a naming word and the name it gives, quoted or capitalised: "a story called Children of Earth"; or a term said to
#: mean something: "the term odd prime refers to any prime number greater than 2"
_GIVES_NAME = re.compile(r"\b(?:called|named|known\s+as|dubbed|termed|nicknamed)\s+(?:(?:the|a|an)\s+)?[\"'“‘A-Z]|"
                         r"\bterm\s+[\"'“‘]?[\w-]+(?:\s[\w-]+){0,3}?[\"'”’]?\s+"
                         r"(?:refers?\s+to|means?|denotes?)\b")
COUNTED_SPAN = 3  # a number counts the words up to this far after it: "500 points", "2 million people"


def counted_noun(question: str) -> str:
    """What "how many …" counts: the last word of the phrase after it, which ends at a verb, a preposition or
    a conjunction ("how many first downs did …": downs; "how many species of X": species), lower case; '' when
    there is none ("how much did …")."""
    m = _COUNTED.search(question)
    phrase: list[str] = []
    for word in re.findall(r"[\w'-]+", m.group(1).lower()) if m else []:
        if word in _COUNTED_END or len(phrase) == COUNTED_PHRASE:
            break
        phrase.append(word)
    return next(iter(tokenize(phrase[-1])), "") if phrase else ""


def counted_words(sentence: str) -> set[str]:
    """The words a number in the sentence may count: the COUNTED_SPAN words after each number, lower case."""
    out: set[str] = set()
    for m in _NUMBER.finditer(sentence):
        out.update(w.lower() for w in re.findall(r"[^\W\d_]+", sentence[m.end():m.end() + 60])[:COUNTED_SPAN])
    return out


def asks_name(question: str) -> bool:
    """The question asks what something is named or called ("What was the name of …", "… called?")."""
    return bool(_ASKS_NAME.search(question))


#: "What is neon used for?", "What are the uses of X?", "What is X used in?": asks what X serves for
_ASKS_USE = re.compile(r"^\W*(?:what|which|how)\b[^?]*\b(?:used\s+(?:for|in|as)\b|uses?\s+of\b|uses?\s+for\b)",
                       re.IGNORECASE)
#: a text saying what something serves for: "is used to treat …", "used mainly for signs", "its uses include …"
_GIVES_USE = re.compile(r"\b(?:used|uses?|using)\s+(?:\w+ly\s+)?(?:for|to|in|as)\s+\w|\buses\s+(?:include|are)\b",
                        re.IGNORECASE)  # not "needs to use CPU to work": an adverb at most between


def asks_use(question: str) -> bool:
    """The question asks what something is used for ("What is neon used for?", "What are the uses of …")."""
    return bool(_ASKS_USE.search(question))


def gives_use(text: str) -> bool:
    """The text says what something is used for: "started being used for cosmopolitan flash", "is used to
    treat …", "its uses include …"."""
    return bool(_GIVES_USE.search(text))


_NEEDED = r"(?:need|needs|needed|require|requires|required|ingredients|materials|supplies|tools|equipment)"
_ASKS_NEEDED = re.compile(rf"^\W*(?:what|which)\b[^?]*\b{_NEEDED}\b", re.IGNORECASE)
_LISTS_NEEDED = re.compile(rf"^[^:;]{{0,60}}\b{_NEEDED}\b[^:;]{{0,40}}:\s[^;]+;", re.IGNORECASE)


def asks_what_is_needed(question: str) -> bool:
    """The question asks what is needed ("What do you need to …", "Which tools are required …", "What
    ingredients …"): a list of what is needed answers it."""
    return bool(_ASKS_NEEDED.search(question))


def lists_what_is_needed(text: str) -> bool:
    """The text is a list quoted whole under a lead-in naming what is needed ("What You'll Need: Cloche; Moss;
    …", "Ingredients: …"; citations._whole_list)."""
    return bool(_LISTS_NEEDED.search(text))


_WHO_DOES = re.compile(r"^\W*who\s+(.+)", re.IGNORECASE)


def says_who(question: str, sentence: str) -> bool:
    """For a question whose "who" does what it says ("Who has the authority of a pastor …?", "Who was limited by
    Denver's defense?"), the sentence says that, its words up to their second content word, right after a word
    of its own that may be the doer: "The licensed local pastor has the authority of a pastor …", "Newton was
    limited by Denver's defense": it names who, by a name or a role."""
    m = _WHO_DOES.match(question)
    words, content = [], 0
    for word in word_tokens(m.group(1)) if m else []:
        words.append(word)
        content += word not in STOPWORDS
        if content == 2:
            said = word_tokens(sentence)  # compared word by word: a pattern over untrusted text could backtrack
            n = len(words)
            return any(said[i + 1:i + 1 + n] == words and said[i] not in NO_DOER for i in range(len(said) - n))
    return False




def gives_name(sentence: str) -> bool:
    """The sentence gives a name with a naming word: "called Children of Earth", 'named "dephlogisticated air"'."""
    return bool(_GIVES_NAME.search(sentence))


_WORD = re.compile(r"[^\W\d_][\w'-]*")
#: what comes before a sentence's first word: the end of the sentence before it, perhaps with closing quotes
AFTER_END = re.compile(r"[.!?:][\"'”’)\]]*\s*[\"'“‘(\[]?$")


def known_names(texts: list[str]) -> frozenset[str]:
    """Words the texts use as names: capitalised inside a sentence ("researcher Ammar Askar said") and never
    written in lower case. A sentence's first word is capitalised whatever it is; it is a name when it is one of
    these ("Askar has released …"), not when the texts also write it in lower case ("Bees dance …")."""
    capitalised: set[str] = set()
    lower: set[str] = set()
    for text in texts:
        for i, m in enumerate(_WORD.finditer(text)):
            word = m.group(0)
            if word.islower():
                lower.add(word)
            elif i and word[0].isupper() and not AFTER_END.search(text[max(0, m.start() - 6):m.start()]):
                capitalised.add(word)
    return frozenset(w for w in capitalised if w.lower() not in lower)


def answer_shape(question: str, sentence: str, kind: str | None = None, names: frozenset[str] = frozenset()) -> int:
    """2: the sentence has what the question asks for and adds to the question's words; 1: it adds at least
    three content words the question does not have; 0: it mostly repeats the question. `names` (known_names of
    the texts the sentence is among) says when a sentence's first word is a name."""
    kind = asked_for(question) if kind is None else kind
    sentence = LIST_NUMBER.sub("", sentence, count=1)  # a step's number ("2. Warm the pot.") is no answer
    asked = set(tokenize(question))
    new = [w for w in tokenize(sentence) if w not in asked]
    if len(new) < 3:
        return 0
    if not kind:
        return 1
    return 2 if has_kind(question, sentence, kind, names) else 1


#: capitalised words that name no one and no place: "I" (and "I'm", "I've"), months, weekdays; a degree
#: ("a Master's degree")
_NO_NAME = re.compile(rf"(?:I|I['’](?:m|ve|d|ll)|{_MONTHS}|{_WEEKDAYS})$")
_DEGREE = re.compile(r"\b(?:Master|Bachelor)(?:['’]?s)?\s+degrees?\b")


#: a word of place and up to three words after it, up to a capitalised word: "in 15th century Europe", "from
#: the Champ de Mars", "near Paris" (not "because of Kaplan": a name that is no place)
_PLACED = re.compile(r"\b(?:in|into|from|at|near|on|to|across|throughout|around|outside|inside|within|between|"
                     r"towards?|off|along|north|south|east|west)\s+(?:[\w'’-]+\s+){0,3}?[A-Z][\w'’-]*")


#: a name in a place: "in Europe", "throughout the United States" (a "who" is not answered by it)
_IN_PLACE = re.compile(r"\b(?i:in|near|across|throughout|inside|outside|within)\s+(?:the\s+)?"
                       r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")


_STATED_TIME = re.compile(rf"\b\d+(?=s?\b)|\b(?:{_MONTHS}|{_WEEKDAYS})\b", re.IGNORECASE)


def _stated_times(question: str) -> set[str]:
    return {m.group(0).lower() for m in _STATED_TIME.finditer(question)}


def has_kind(question: str, sentence: str, kind: str, names: frozenset[str] = frozenset()) -> bool:
    """The sentence holds the kind of answer asked for (asked_for): a year, month or weekday for "when", a number the
    question does not state for "number", an amount of money for "money", a frequency for "often", for "who is
    X" a definition of X, else a name the question does not have (for "where" one after a word of place,
    `_PLACED`; for "who" none in a place, `_IN_PLACE`): a capitalised word inside a sentence, or one that opens
    the sentence (or a sentence within the text, "… dance. She runs …") when the texts use it as a name
    (`names`: known_names); not "I", a month, a weekday or a degree ("a Master's degree"), which name no one."""
    if kind == "when":  # not a year or month the question states: "When was the 2001 report confirmed?"
        stated = _stated_times(question)
        sentence = _STATED_TIME.sub(lambda m: " " if m.group(0).lower() in stated else m.group(0), sentence)
        return bool(_YEAR.search(sentence) or _MONTH.search(sentence) or _WEEKDAY.search(sentence))
    if kind == "number":  # a count or amount: a date's day and year do not answer "how many"
        stated = set(re.findall(r"\d[\d,.]*", question))
        return any(m.group(0) not in stated for m in _NUMBER.finditer(_DATE.sub(" ", sentence)))
    if kind == "often":
        return bool(_FREQUENCY.search(sentence))
    if kind == "money":
        return bool(_MONEY.search(sentence))
    if kind == "who" and says_who(question, sentence):  # a role answers too: "The licensed local pastor has …"
        return True
    who_is = _WHO_IS.match(question) if kind == "who" else None
    if who_is and is_definition(who_is.group("x"), sentence):
        return True  # "Who is X?" is answered by what X is: "X is an American activist …"
    if kind == "where":  # a name is a place where a word of place comes before it: "in 15th century Europe"
        sentence = " ".join(m.group(0) for m in _PLACED.finditer(sentence))
    elif kind == "who":  # a place names no one: "debuted in Europe" (not "in Einstein's theory")
        sentence = _IN_PLACE.sub(lambda m: m.group(0) if re.search(r"['’]s$", m.group(0)) else " ", sentence)
    named = set()
    sentence = _DEGREE.sub(" ", sentence)
    for i, m in enumerate(_WORD.finditer(sentence)):
        word = re.sub(r"'s$", "", m.group(0))
        if _NO_NAME.match(word):
            continue
        opens = i == 0 or AFTER_END.search(sentence[max(0, m.start() - 6):m.start()])
        if word[0].isupper() and (not opens or word in names or m.group(0) in names):  # an opener: a known name
            named.add(word.lower())
    return bool(named - set(tokenize(question)))


#: words that may say when or how many in a form `has_kind` does not read ("in 430 BC", "within five years", "in
#: the spring", "several", "dozens"): an answer holding one is not said to lack a date or a number
_MAY_SAY_WHEN = re.compile(rf"\d|\b(?:centur(?:y|ies)|decades?|years?|months?|weeks?|days?|hours?|era|ages?|ago|"
                           rf"spring|summer|autumn|fall|winter|season|{_WEEKDAYS}s?|"
                           r"today|yesterday|tomorrow|morning|evening|night|dawn|dusk|noon|midnight|annually|"
                           r"reign|war|dynasty|period)\b", re.IGNORECASE)
#: an amount of money, a share or an age, which says no time: "$19 billion", "€3.5m", "40%", "two million
#: dollars", "the 93-year-old", "aged 93" (a figure is tried from its start only, and no two runs of spaces meet:
#: "1,1,1,…" or "1" and many spaces took time growing with the square of their length)
_TIMELESS = re.compile(r"[$€£¥]\s?\d[\d,.]*(?:\s*(?:thousand|million|billion|trillion|bn|m|k)\b)?|"
                       r"(?<![\d,.])\b\d[\d,.]*\s*(?:%|percent\b|per\s+cent\b|"
                       r"(?:(?:thousand|million|billion|trillion)\s*)?(?:dollars?|euros?|pounds?|yen|yuan|rupees?)\b)|"
                       r"\b\d+[\s-]*(?:years?|months?)[\s-]*old\b|\baged\s+\d+\b", re.IGNORECASE)
_MAY_SAY_AMOUNT = re.compile(r"\b(?:several|dozens|few|many|numerous|single|multiple|both|none|no|all|hundreds|"
                             r"thousands|millions|billions|countless|various|some|most|half|twice|once|double|"
                             r"triple)\b", re.IGNORECASE)


_MAY_SAY_PRICE = re.compile(r"\b(?:costs?|costing|priced?|prices|paid|pays?|sells?|sold|charges?|fees?|worth)\b"
                            r"[^.;]{0,40}?\d|\bfree\b", re.IGNORECASE)


def may_give(question: str, sentence: str, kind: str, names: frozenset[str] = frozenset()) -> bool:
    """Leniently, whether the sentence may hold the kind of answer asked for: `has_kind`, or for "when" any
    figure (not money, a share or an age) or time word, for "number" any quantifier, for "money" a figure after a
    word of price or "free", for "where" any name. An answer is said to lack the kind only when none of its texts
    may hold it, so the line that says so is not said of an answer in a form has_kind misses."""
    if has_kind(question, sentence, kind, names):
        return True
    if kind == "when":
        timeless = _TIMELESS.sub(" ", sentence)
        return bool(_MAY_SAY_WHEN.search(timeless) or _MONTH.search(timeless))
    if kind == "number":
        return bool(_MAY_SAY_AMOUNT.search(sentence))
    if kind == "money":  # a bare figure after a word of price: "it sells for 35", "costs 10 a month"; or "free"
        return bool(_MAY_SAY_PRICE.search(sentence))
    if kind == "where":  # any name may be a place: "Paris's most visited museum"
        return has_kind(question, sentence, "name", names)
    return False


def pinpoints(question: str, text: str) -> bool:
    """The text states the answer the way the question asks for it: for "how many N" a number that counts N ("500
    points" for "How many points …"); for a question asking what something is named or called, a name given by a
    naming word ("a story called Children of Earth", 'a gas he named "dephlogisticated air"'); for "who" doing what
    the question says, that said of someone ("The licensed local pastor has the authority …", `says_who`); for a
    question asking what is needed ("What do you need to …"), a list quoted under a lead-in naming what is needed
    ("What You'll Need: Cloche; Moss; …", "Ingredients: …"); for a question asking what someone said or found ("What
    did Zuckerberg say about acquisitions?", "What did the survey find?"), a text reporting their words or findings
    ("…, Zuckerberg said at the trial.", "The survey suggests that …"); for a question asking what something is used
    for, a text saying what it is used for ("neon started being used for cosmopolitan flash"); for "What does AFC
    stand for?" (or "What is an abbreviation for …?"), a text spelling the abbreviation out (abbreviations.expands).
    Evidence of an answer, not proof: "how many points" may be met by the points of another team."""
    noun = counted_noun(question)
    if noun:
        return stem(noun) in {stem(w) for w in counted_words(text)}
    speaker = speaker_asked(question)
    return ((asks_name(question) and gives_name(text)) or says_who(question, text)
            or (asks_use(question) and gives_use(text))
            or (asks_what_is_needed(question) and lists_what_is_needed(text))
            or bool(speaker and reports_speech_of(speaker, text)) or expands(question, text))


# ---------------------------------------------------------------- definitions ("what is X")

_DEFINITION_Q = re.compile(r"^\s*(?:what(?:\s+(?:is|are|was|were)|['’]s)\s+(?:an?\s+)?|define\s+|what\s+does\s+)"
                           r"(?P<x>[^?]+?)(?:\s+mean)?\s*\??\s*$", re.IGNORECASE)
_DEFINES = re.compile(r"\b(?:is|are|was|were|refers?\s+to|means?|denotes?|is\s+defined\s+as|is\s+called)\b",
                      re.IGNORECASE)


#: "Who is X?", "Who were the Huguenots?" for a name X (capitalised words, perhaps joined by "von", "de" …):
#: asks what X is, as "What is X?" does, not for a name other than X
_WHO_IS = re.compile(r"^\s*[Ww]ho\s+(?:is|was|are|were)\s+(?:[Tt]he\s+)?(?P<x>[A-Z][\w'’.-]*"
                     rf"(?:\s+(?:(?:{NAME_PARTICLES})\s+)*[A-Z][\w'’.-]*){{0,4}})\s*\??\s*$")


def definition_subject(question: str) -> str:
    """X of "what is X?" when X is a short name (no "of", at most five words), or of "who is X?" when X is a
    name (`_WHO_IS`), else ''."""
    who = _WHO_IS.match(question)
    if who:
        return who.group("x")
    m = _DEFINITION_Q.match(question)
    if not m:
        return ""
    x = m.group("x").strip()
    return x if len(x.split()) <= 5 and not re.search(r"\b(?:of|in|for|by|to|that|which)\b", x, re.I) else ""


#: a defining verb that names what the subject is: "is a …", "are the …", "is one of …", "refers to …"
_NAMES_KIND = re.compile(r"\b(?:(?:is|are|was|were)\s+(?:a|an|the|one|any)\b|refers?\s+to|means?|denotes?|"
                         r"is\s+defined\s+as)", re.IGNORECASE)


#: a question and the answer that opens with a pronoun for its subject: "What's a Superbug? It's a term …"
_ASKED_THEN_PRONOUN = re.compile(r"^(?P<q>[^?]{1,150}\?)\s+(?:it|they|this|these)(?P<verb>['’](?:s|re)\b.*|\s+\w.*)",
                                 re.IGNORECASE | re.DOTALL)


def is_definition(subject: str, text: str, names_kind: bool = False) -> bool:
    """The text defines the subject: it opens with the subject (after an article, or a field such as "In
    mathematics,"), an optional aside in brackets or commas, then a defining verb ("is", "refers to" …); with
    names_kind, one that names what the subject is ("is a framework", not "is for everyone"). Or it asks what
    the subject is and answers with a pronoun and such a verb ("What's a Superbug? It's a term coined …")."""
    words = [re.escape(fold(w)) + r"(?:e?s)?" for w in re.findall(r"\w+", subject.lower())]
    if not words:
        return False
    verb = _NAMES_KIND if names_kind else _DEFINES
    asked = _ASKED_THEN_PRONOUN.match(text)
    if asked:
        said = re.sub(r"^'re\b", "are", re.sub(r"^'s\b", "is", asked.group("verb").replace("’", "'").strip(),
                                                flags=re.IGNORECASE), flags=re.IGNORECASE)
        return (re.fullmatch(r"(?:" + r"\W+".join(words) + r")", fold(definition_subject(asked.group("q"))),
                             re.IGNORECASE) is not None and re.match(verb.pattern, said, re.IGNORECASE) is not None)
    pattern = (r"^\W*(?:in\s+[^,]{1,40},\s*)?(?:(?:a|an|the)\s+)?" + r"\W+".join(words)
               + r"\W*(?:\([^)]{0,80}\)\s*)?(?:,[^,]{0,80},\s*)?" + verb.pattern)
    return bool(re.match(pattern, text, re.IGNORECASE))


#: a word for what a person is, written right before their name: "developer", "philosopher", "CEO",
#: "President", "chairwoman" (a role's ending, or an acronym; not "after", "other" …, nor a verb: "met", "said")
_ROLE = re.compile(r"(?:[a-z][a-z-]*(?:er|or|ist|ian|ant|ent|ee|ive|man|woman|ess)|[A-Z][a-z]+(?:ent|er|or|ister)|"
                   r"[A-Z]{2,5})$")
#: a title that says what a person is, before the name or after it: "Landgrave Philip", "Philip I, Landgrave of Hesse"
_TITLE = (r"(?:King|Queen|Prince|Princess|Duke|Duchess|Count|Countess|Earl|Baron|Baroness|Landgrave|Margrave|Elector|"
          r"Emperor|Empress|Pope|Bishop|Archbishop|Cardinal|Saint|General|Colonel|Captain|Admiral|Lord|Lady|Sultan|"
          r"Caliph|Tsar|Czar|Khan|Pharaoh|Sheikh|Emir|Shah|Rabbi|Imam)")
_NOT_ROLE = frozenset("""after under over other another either neither whether per later earlier rather never ever
however whenever wherever sent spent went meant want recent consider remember""".split())


def describes(subject: str, text: str) -> bool:
    """For "Who is X?" (X a name): the text says what X is by a role right before the name ("Facebook CEO Mark
    Zuckerberg", "the philosopher Luis de Miranda", "a meteorologist named Edward Lorenz", "Landgrave Philip") or
    an aside right after it ("Ellen Fetter, a recent graduate …", "Ada Quill, who wrote …", "Philip I, Landgrave
    of Hesse, …")."""
    name = r"\s+".join(map(re.escape, subject.split()))
    for m in re.finditer(rf"\b{name}\b", text):
        if re.match(rf",\s+(?:a|an|the|who|whose|{_TITLE})\s", text[m.end():m.end() + 14]):
            return True
        head = text[max(0, m.start() - 80):m.start()]  # two words before it, bounded: no search runs back far
        before = re.search(r"([\w'’-]+)\s+$", head)
        if before and before.group(1) in ("named", "called"):  # "a meteorologist named Edward Lorenz"
            before = re.search(r"([\w'’-]+)\s+$", head[:before.start(1)])
        if before and before.group(1).lower() not in _NOT_ROLE and (_ROLE.search(before.group(1))
                                                                 or re.fullmatch(_TITLE, before.group(1))):
            return True
    return False
