"""Which language a short text (a question) is written in, cheaply and without a model: the writing system
first (Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai, Hangul, kana, Han), then, for Latin script, the
language whose common little words it uses most. The answer is an ISO 639-1 code, or "" when unsure.

    detect_language("Wie tanzen die Bienen?")  -> "de"
    language_name("de")                        -> "German"
"""
from __future__ import annotations

import re
import unicodedata

LANGUAGE_NAMES = {
    "ar": "Arabic", "bg": "Bulgarian", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek",
    "en": "English", "es": "Spanish", "fi": "Finnish", "fr": "French", "he": "Hebrew", "hi": "Hindi",
    "hu": "Hungarian", "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ko": "Korean", "nl": "Dutch",
    "no": "Norwegian", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sv": "Swedish",
    "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese", "zh": "Chinese",
}

# a few dozen of each language's commonest short words (question words, articles, prepositions)
STOP_WORDS = {
    "en": "the a an of and to in is are was were what how why when where which who does do did can with for on "
          "from that this it be by as at or not",
    "de": "der die das den dem des ein eine einen und ist sind war wie was warum wann wo welche welcher wer "
          "mit für von zu im in auf nicht es sich auch oder bei über nach sie wenn haben hat wird werden ich wir "
          "dass aber noch nur können kann",
    "fr": "le la les un une des du de et est sont était comment pourquoi quand où quel quelle qui que avec "
          "pour dans sur pas ce cette il elle au aux ou par ils elles ont je nous mais encore seulement peut",
    "es": "el la los las un una unos de del y es son era cómo como por qué cuándo dónde cuál quién que con para "
          "en sobre no se lo al o",
    "it": "il lo la gli le un una di del della e è sono era come perché quando dove quale chi che con per in su "
          "non si al o nel",
    "pt": "o a os as um uma de do da dos das e é são era como por que quando onde qual quem com para em no na "
          "não se ao ou",
    "nl": "de het een en is zijn was hoe wat waarom wanneer waar welke wie met voor van in op niet er ook of "
          "bij hebben heeft worden wordt ik wij dat maar nog alleen kunnen",
}
_STOP_SETS = {lang: frozenset(words.split()) for lang, words in STOP_WORDS.items()}
_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)

# (unicodedata name prefix, language) for scripts that name their language well enough
_SCRIPTS = (("HIRAGANA", "ja"), ("KATAKANA", "ja"), ("HANGUL", "ko"), ("CJK", "zh"), ("CYRILLIC", "ru"),
            ("GREEK", "el"), ("ARABIC", "ar"), ("HEBREW", "he"), ("DEVANAGARI", "hi"), ("THAI", "th"))


def language_name(code: str) -> str:
    """The English name of a language code ("" for none); unknown codes are described by their code."""
    code = (code or "").strip()
    if not code:
        return ""
    return LANGUAGE_NAMES.get(code.lower().split("-")[0], f"the language with code {code!r}")


def _script_language(text: str) -> str:
    counts: dict[str, int] = {}
    letters = 0
    for ch in text:
        if not ch.isalpha():
            continue
        letters += 1
        name = unicodedata.name(ch, "")
        for prefix, lang in _SCRIPTS:
            if name.startswith(prefix):
                counts[lang] = counts.get(lang, 0) + 1
                break
    if not counts or sum(counts.values()) * 2 < letters:
        return ""
    if counts.get("ja"):  # Japanese mixes kana with Han characters
        return "ja"
    return max(counts, key=counts.get)


def detect_language(text: str) -> str:
    """The ISO 639-1 code of the language `text` is most likely written in, or "" when it cannot tell."""
    by_script = _script_language(text or "")
    if by_script:
        return by_script
    words = [w.lower() for w in _WORD_RE.findall(text or "")]
    if not words:
        return ""
    hits = {lang: sum(w in stops for w in words) for lang, stops in _STOP_SETS.items()}
    best = max(hits, key=hits.get)
    ranked = sorted(hits.values(), reverse=True)
    if ranked[0] == 0 or ranked[0] == ranked[1]:
        return ""
    return best
