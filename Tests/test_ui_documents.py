"""Documents and Wikipedia tab helpers that need no model: uploads kept safely, options applied per question."""
import gradio as gr
import pytest

from App_Function_Libraries.Gradio_UI import documents_tab, wikipedia_tab


def test_uploads_are_kept_under_their_name_without_overwriting(tmp_path):
    uploads = tmp_path / "uploads"
    first, second = tmp_path / "a" / "notes.md", tmp_path / "b" / "notes.md"
    for path, text in ((first, "one"), (second, "two")):
        path.parent.mkdir()
        path.write_text(text)
    kept_first = documents_tab.keep_upload(first, uploads)
    kept_again = documents_tab.keep_upload(first, uploads)
    kept_second = documents_tab.keep_upload(second, uploads)
    assert kept_first == kept_again == uploads / "notes.md"
    assert kept_second != kept_first and kept_second.read_text() == "two" and kept_first.read_text() == "one"


def test_nothing_to_add_or_a_missing_folder_is_a_clear_error(make_settings, tmp_path):
    make_settings({})
    with pytest.raises(ValueError, match="choose files"):
        documents_tab.paths_to_add([], "  ")
    with pytest.raises(ValueError, match="no such file or folder"):
        documents_tab.paths_to_add(None, str(tmp_path / "nowhere"))


def test_wikipedia_options_apply_to_one_question_only(make_settings):
    settings = make_settings({"wikipedia": {"top_k_nodes": "10"}})
    changed = wikipedia_tab.with_search_options(settings, 3, 50, 8, False)
    w = changed.wikipedia
    assert (w.top_k_nodes, w.similarity_search_top_k_nodes, w.similarity_search_rescore_multiplier, w.hybrid) == \
        (3, 50, 8, False)
    assert settings.wikipedia.top_k_nodes == 10


def test_wikipedia_status_without_an_index(make_settings):
    make_settings({})
    text, button = wikipedia_tab.refresh_status()
    assert text.startswith("**No index yet** in") and button.visible is True
    assert "python app.py" not in text  # the UI says it in its own words, once


def test_skipped_files_and_warnings_show_as_text():
    """A backtick in a file name ended its code span; an annotation warning quotes the server's error body."""
    import re
    from App_Function_Libraries.Documents.doc_types import IngestReport, SkippedFile
    from App_Function_Libraries.Gradio_UI.documents_tab import added_markdown, skipped_files_markdown
    name = "/tmp/a` <img src=x:a> `.pdf"
    report = IngestReport(skipped=[SkippedFile(name, "bad <b>bold</b>")],
                          warnings=['annotation failed: 500 <img src="//ev.il/b">'])
    for text in (added_markdown(report), skipped_files_markdown([(name, "bad <b>bold</b>")])):
        assert not re.search(r"(?<!\\)[<>`]", text), text
        assert "a\\` \\<img src=x:a\\> \\`.pdf" in text
    assert '\\<img src="//ev.il/b"\\>' in added_markdown(report)


def test_the_tab_research_and_the_facade_share_one_library(make_settings, monkeypatch):
    """One open library per index folder: the tab's (the facade's shared one, quarry.docs.library) and research's."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.Documents.library import document_library
    settings = make_settings({})
    assert quarry.docs.library() is document_library(settings)
    shared, real = [], quarry.docs.list
    monkeypatch.setattr(quarry.docs, "list", lambda *a, **kw: shared.append(kw["shared"]) or real(*a, **kw))
    with pytest.warns(UserWarning, match="the collection is empty"):
        assert documents_tab.ask("anything?", 5) == gr.skip()
    assert shared == [True]


@pytest.mark.slow
def test_a_question_in_the_tab_is_asked_through_the_facade(make_settings, tmp_path, monkeypatch):
    from App_Function_Libraries import quarry
    make_settings({})
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "coffee.md").write_text("# Brewing\n\nA French press needs coarse grounds and four "
                                                  "minutes of steeping.\n", encoding="utf-8")
    quarry.docs.add([tmp_path / "files"], shared=True)
    asked, real = [], quarry.docs.ask
    monkeypatch.setattr(quarry.docs, "ask", lambda *a, **kw: asked.append(kw["shared"]) or real(*a, **kw))
    html, rows = documents_tab.ask("How long should coffee steep?", 3, progress=lambda *a, **kw: None)
    assert asked == [True] and "French press" in html and rows[0][1] == "coffee.md"
