from App_Function_Libraries.Retrieval.citations import (
    CitableSource, clean_citation_groups, cited_sentences, extractive_answer, parse_group, verify_citations)

SOURCES = [
    CitableSource(1, "http://a.test/1", "Bees", ["Honey bees communicate the direction of food with a waggle dance.",
                                                  "A colony can hold tens of thousands of workers."], "h1"),
    CitableSource(2, "http://b.test/2", "Ants", ["Ants lay pheromone trails that other ants follow to food."], "h2"),
    CitableSource(3, "http://c.test/3", "Birds", ["Many songbirds migrate at night using the stars."], "h3"),
]


def test_parse_group_lists_and_ranges():
    assert parse_group("1, 3") == [1, 3]
    assert parse_group("2-4") == [2, 3, 4]
    assert parse_group("1–2; 5") == [1, 2, 5]
    assert parse_group("9-1") == [9, 1]  # a backwards range is read as two numbers, not expanded


def test_invalid_numbers_removed_and_counted():
    text, removed = clean_citation_groups("Bees dance [1, 7]. Ants follow trails [9]. Birds [2][2, 2].", {1, 2, 3})
    assert text == "Bees dance [1]. Ants follow trails. Birds [2][2]."
    assert removed == 2


def test_links_and_footnotes_untouched():
    text, removed = clean_citation_groups("See [the docs](http://x/1) and note[^1] and [12](y).", {1})
    assert text == "See [the docs](http://x/1) and note[^1] and [12](y)."
    assert removed == 0


def test_citation_after_full_stop_stays_with_its_sentence():
    pairs = cited_sentences("Bees dance to show food. [1] Ants follow trails [2].")
    assert pairs == [("Bees dance to show food.", [1]), ("Ants follow trails.", [2])]


def test_verify_maps_quotes_and_uncited():
    md = "## Findings\n- Bees use a waggle dance to point at food [1].\n- Ants follow scent trails [2, 2, 5]."
    check = verify_citations(md, SOURCES)
    assert check.invalid_removed == 1
    assert "[5]" not in check.markdown and "[2]" in check.markdown
    assert [(c.n, c.url) for c in check.citations] == [(1, "http://a.test/1"), (2, "http://b.test/2")]
    assert "waggle dance" in check.citations[0].quote
    assert check.citations[0].content_hash == "h1"
    assert check.uncited == [3]


def test_range_citation_cites_each_source():
    check = verify_citations("All three animals navigate [1-3].", SOURCES)
    assert sorted(c.n for c in check.citations) == [1, 2, 3]
    assert check.uncited == []


def test_extractive_answer_cites_real_sources_only():
    answer = extractive_answer("How do ants find food?", SOURCES)
    first = answer.splitlines()[0]
    assert "pheromone" in first and first.endswith("[2]")
    check = verify_citations(answer, SOURCES)
    assert check.invalid_removed == 0 and check.citations
    for c in check.citations:  # every extracted sentence is verbatim from its cited source
        assert c.sentence.rstrip(".") in " ".join(SOURCES[c.n - 1].passages)


def test_extractive_answer_without_text():
    assert "do not contain" in extractive_answer("q", [CitableSource(1, "u", "t", [])])
