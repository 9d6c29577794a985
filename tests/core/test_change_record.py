"""The change record (core/changes.py), the acts that return it (core/coding/acts.py) and the watch that finds
another connection's writes (core/store/watch.py), on real project files."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from core.changes import Act, ProjectChange, decided, project_restored
from core.coding import acts
from core.models import Language
from core.store import create_project, open_project, repository
from core.store.watch import ProjectWatch


def _two_connections(tmp_path: Path):
    path = tmp_path / "watched.grammarlens"
    create_project(path).close()
    return open_project(path, backup=False), open_project(path, backup=False)


def test_each_act_says_what_it_changed(tmp_path: Path) -> None:
    window, _other = _two_connections(tmp_path)
    coded = acts.code(window, "81A", "1", reviewer="a")
    assert coded.act == Act.CODE and coded.features == {"81A"} and coded.statuses and coded.pins
    assert [d.code for d in coded.decisions] == ["1"]
    noted = acts.note(window, "81A", "why", reviewer="a")
    assert noted.act == Act.NOTE and noted.notes and not noted.statuses and not noted.pins
    undone = acts.undo(window, "81A", reviewer="a")
    assert undone.act == Act.UNDO and undone.statuses and undone.restored["81A"].code == "1"
    assert [d.action for d in undone.decisions] == ["undo"]
    polar = acts.note(window, "116A*", "both parts", reviewer="a")  # a note on the complex: one row per part
    assert len(polar.features) == 7 and polar.touches("GB257") and not polar.touches("81A")
    assert project_restored().touches("81A") and project_restored().values_changed


def test_records_merge_and_a_record_is_frozen(tmp_path: Path) -> None:
    window, _other = _two_connections(tmp_path)
    a = decided(Act.CODE, acts.code(window, "81A", "1").decisions)
    b = ProjectChange(Act.LANGUAGE, language=True)
    both = a.merged(b)
    assert both.features == {"81A"} and both.language and both.statuses and both.act == Act.OUTSIDE
    with pytest.raises(dataclasses.FrozenInstanceError):  # a screen cannot change what another one reads
        both.language = False  # type: ignore[misc]


def test_the_watch_sees_another_connections_acts_once_and_never_its_own(tmp_path: Path) -> None:
    window, cli = _two_connections(tmp_path)
    watch = ProjectWatch(window)
    assert watch.look() is None  # nothing yet
    watch.own(acts.code(window, "GB020", "1", reviewer="window"))  # the window's act, announced by itself
    assert watch.look() is None  # its own commit does not move data_version
    acts.code(cli, "81A", "2", reviewer="cli")
    found = watch.look()
    assert found is not None and found.act == Act.OUTSIDE and found.features == {"81A"}  # not GB020
    assert [d.reviewer for d in found.decisions] == ["cli"]
    assert watch.look() is None  # told once
    repository.set_language(cli, Language("Veshari", None, "user"))
    language = watch.look()
    assert language is not None and language.language and not language.features


def test_model_answers_stored_beside_the_window_are_a_change_of_their_features(tmp_path: Path) -> None:
    """A batch file imported (or ``classify`` run) by another connection: the "predicted" state of those features."""
    from core.records.classifications import ValueRecord
    from core.store.classifications import save_classification
    from tests.core.test_export_fuzz import classification

    window, importer = _two_connections(tmp_path)
    watch = ProjectWatch(window)
    with importer.transaction():
        save_classification(importer, classification("81A", [ValueRecord("81A", "1", "SOV")]), {})
        save_classification(importer, classification("116A*", [ValueRecord("GB257", "1", "present")]), {})
    found = watch.look()
    assert found is not None and found.statuses and {"81A", "116A*", "GB257"} <= found.features
    assert watch.look() is None


def test_language_grammar_and_restore_return_their_records(tmp_path: Path) -> None:
    """The acts outside core.coding return their record too: setting the language, reading a grammar, a restore."""
    from core.ingest import ingest
    from core.store.backups import make_backup
    from core.store.restore import restore_backup
    from tests.fixtures_ingest import write_sample_book

    project, _other = _two_connections(tmp_path)
    stored = repository.set_language(project, Language("Veshari", None, "user"))
    assert stored.change.act == Act.LANGUAGE and stored.change.language and not stored.change.features
    assert stored.code is None and stored.note == ""  # the Glottocode's check rides along
    book = write_sample_book(tmp_path / "teshi.pdf").path
    first, again = ingest(project, book), ingest(project, book)
    assert first.change.act == Act.IMPORT and first.change.documents and first.change.language
    assert again.already_present and again.change.empty  # the same book twice: nothing changed
    backup = make_backup(project, "manual")
    project.close()
    _other.close()
    restored = restore_backup(project.path, backup.path)
    assert restored.safety is not None and restored.safety.path.exists()
    assert restored.change.act == Act.RESTORE and restored.change.whole_project and restored.change.touches("81A")


def test_the_watch_leaves_out_model_answers_the_window_stored_itself(tmp_path: Path) -> None:
    """A classification or a batch import of the window writes from a worker's connection: once its record is
    announced (``own``) the watch does not find those answers again, but still finds another program's."""
    from core.changes import classified
    from core.records.classifications import ValueRecord
    from core.store.classifications import save_classification
    from tests.core.test_export_fuzz import classification

    window, worker = _two_connections(tmp_path)
    cli = open_project(worker.path, backup=False)
    watch = ProjectWatch(window)
    with worker.transaction():  # the window's own classification, from its worker
        save_classification(worker, classification("81A", [ValueRecord("81A", "1", "SOV")]), {})
    with cli.transaction():  # and the CLI's, of another feature, at the same time
        save_classification(cli, classification("GB107", [ValueRecord("GB107", "1", "present")]), {})
    watch.own(classified({"81A"}))
    found = watch.look()
    assert found is not None and found.features == {"GB107"} and found.act == Act.OUTSIDE
    with cli.transaction():  # later answers for 81A by someone else are theirs again
        save_classification(cli, classification("81A", [ValueRecord("81A", "2", "SVO")]), {})
    again = watch.look()
    assert again is not None and again.features == {"81A"}
    watch.own(classified({"81A"}))  # an answer of the window that wrote nothing (its prompt was cached)...
    with cli.transaction():  # ...does not make the CLI's next answer for 81A the window's
        save_classification(cli, classification("81A", [ValueRecord("81A", "1", "SOV")]), {})
    third = watch.look()
    assert third is not None and third.features == {"81A"}


def test_another_programs_answer_to_the_same_feature_stays_theirs_when_the_record_names_the_windows_ids(
        tmp_path: Path) -> None:
    """The window's classification of 81A commits, the CLI's answer to 81A commits, then the window's record
    arrives: by feature the CLI's answer would be taken for the window's; by id it is found as another's."""
    from core.changes import classified
    from core.records.classifications import ValueRecord
    from core.store.classifications import save_classification
    from tests.core.test_export_fuzz import classification

    window, worker = _two_connections(tmp_path)
    cli = open_project(worker.path, backup=False)
    watch = ProjectWatch(window)
    with worker.transaction():
        ours = save_classification(worker, classification("81A", [ValueRecord("81A", "1", "SOV")]), {})
    with cli.transaction():
        theirs = save_classification(cli, classification("81A", [ValueRecord("81A", "2", "SVO")]), {})
    assert ours.id is not None and theirs.id is not None and theirs.id > ours.id
    watch.own(classified({"81A"}, [ours.id]))
    found = watch.look()
    assert found is not None and found.features == {"81A"} and found.act == Act.OUTSIDE
    assert watch.look() is None  # once


def _batch_answer(db, feature_id: str, value: str, claims=None):
    """An answer stored as a batch file's import stores it: linked to its batch request, in one transaction
    (claimed in ``claims`` inside it, as the window's import claims its own)."""
    from core.records.classifications import ValueRecord
    from core.store.batch_requests import BatchRequest, mark_imported, put_requests
    from core.store.classifications import save_classification
    from tests.core.test_export_fuzz import classification

    custom_id = f"test|{feature_id}|{value}"
    with db.transaction():
        put_requests(db, [BatchRequest(custom_id, feature_id, "rag", "Testish", "json", "hash", {}, {}, None, (), 0, "",
                                       None)])
        stored = save_classification(db, classification(feature_id, [ValueRecord(feature_id, value, value)]), {})
        assert stored.id is not None
        mark_imported(db, custom_id, stored.id)
        if claims is not None:
            claims.claim(db.path, stored.id)
    return stored


def test_while_the_window_imports_a_batch_file_only_its_answers_wait(tmp_path: Path) -> None:
    """The import's answers (claimed by id as it stores them) wait for its record; another program's classify
    *and* another program's batch import (answers linked to batch requests too) are found at once; the record
    takes the held ones; a cancelled import's show after it."""
    from core.changes import answers_imported
    from core.records.classifications import ValueRecord
    from core.store.claims import AnswerClaims
    from core.store.classifications import save_classification
    from tests.core.test_export_fuzz import classification

    window, worker = _two_connections(tmp_path)
    cli = open_project(worker.path, backup=False)
    watch = ProjectWatch(window)
    importing = AnswerClaims()
    watch.follow(importing, held=True)
    _batch_answer(worker, "81A", "1", importing)  # the import's first chunk
    with cli.transaction():  # meanwhile the CLI's classify
        save_classification(cli, classification("GB107", [ValueRecord("GB107", "1", "present")]), {})
    _batch_answer(cli, "49A", "2")  # and the CLI's own batch import
    found = watch.look()
    assert found is not None and found.features == {"GB107", "49A"} and found.act == Act.OUTSIDE
    _batch_answer(worker, "GB020", "1", importing)  # the import's last chunk, committed after that look
    assert watch.look() is None
    watch.own(answers_imported({"81A", "GB020"}))  # its record: both are the window's own
    watch.unfollow(importing)
    assert watch.look() is None and watch.look() is None

    second = AnswerClaims()
    watch.follow(second, held=True)
    _batch_answer(worker, "GB021", "1", second)  # a second import, cancelled after its first chunk
    assert watch.look() is None
    watch.unfollow(second)
    cancelled = watch.look()  # over without a record: what it stored is shown now, once
    assert cancelled is not None and cancelled.features == {"GB021"} and watch.look() is None


def test_a_look_leaves_what_the_window_is_writing_for_later_and_finds_the_rest(tmp_path: Path) -> None:
    """While the window's worker writes decisions (a resolution), its rows are not someone else's yet: the look
    skips decisions, still finds another program's language; the next look (data_version unchanged) the rows."""
    from core.store.watch import Written

    window, worker = _two_connections(tmp_path)
    cli = open_project(worker.path, backup=False)
    watch = ProjectWatch(window)
    acts.code(worker, "GB020", "1", reviewer="window's worker")
    repository.set_language(cli, Language("Veshari", None, "user"))
    held = watch.look(frozenset({Written.DECISIONS}))
    assert held is not None and held.language and not held.features  # the language at once, not the decision
    later = watch.look()
    assert later is not None and later.features == {"GB020"} and not later.language  # not lost, not told twice
    assert watch.look() is None
