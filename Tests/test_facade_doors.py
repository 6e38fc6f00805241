"""The facade functions the front doors call instead of the stores (issue 24: the facade is the only door):
saving answers as data, a note deleted twice is a typed error, removing documents reports what named none."""
from __future__ import annotations

import pytest

from App_Function_Libraries import quarry
from App_Function_Libraries.records import ResearchResult, Source


def a_result(question: str = "How do bees find food?") -> ResearchResult:
    return ResearchResult(question=question, report_markdown="Bees dance [1].",
                          sources=[Source(title="Waggle dance", url="https://bees.example/dance", n=1)], mode="extractive")


def test_saving_answers_ok_and_the_id(make_settings):
    settings = make_settings({})
    saved = quarry.history.save(a_result(), settings)
    assert saved.ok and saved.message == ""
    assert quarry.history.get(saved.id[:8], settings).question == "How do bees find food?"


def test_saving_into_an_unusable_database_answers_not_ok_with_the_line_to_show(make_settings, tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"junk\n")
    settings = make_settings({"databases": {"research_db": str(junk)}})
    saved = quarry.history.save(a_result(), settings)  # no exception: the caller still has the report
    assert (saved.ok, saved.id) == (False, None)
    assert saved.message.startswith("could not save the result: ") and str(junk) in saved.message
    assert "\n" not in saved.message


def test_a_note_deleted_twice_is_already_in_the_trash_and_restore_brings_it_back(make_settings):
    settings = make_settings({})
    note = quarry.notes.add("Hives", "Hives hold combs.", "bees", settings=settings)
    assert quarry.notes.delete(note.id[:6], settings=settings) == note.id
    with pytest.raises(quarry.notes.AlreadyInTrash) as raised:
        quarry.notes.delete(note.id[:6], settings=settings)
    assert raised.value.note_id == note.id and isinstance(raised.value, quarry.QuarryError)
    assert [n.id for n in quarry.notes.list(deleted=True, settings=settings)] == [note.id]
    assert quarry.notes.restore(note.id[:6], settings).version == note.version + 2


def test_a_stale_edit_leaves_as_one_quarry_error_and_changes_nothing(make_settings):
    settings = make_settings({})
    note = quarry.notes.add("Hives", "Hives hold combs.", "bees", settings=settings)
    edited = quarry.notes.edit(note.id, title="Beehives", settings=settings)  # at the version it has now
    with pytest.raises(quarry.QuarryError):
        quarry.notes.edit(note.id, note.version, content="Older text", settings=settings)
    assert quarry.notes.get(note.id, settings).content == "Hives hold combs." and edited.title == "Beehives"


def test_removing_documents_reports_each_reference_that_names_none(make_settings):
    settings = make_settings({})
    done = quarry.docs.remove(["42", "/no/such/file.md"], settings)
    assert done.removed == [] and len(done.missing) == 2
    assert all("\n" not in line for line in done.missing)
