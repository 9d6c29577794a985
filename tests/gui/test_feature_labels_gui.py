"""The profile table shows a value with the catalog's label, and the database's value worded the same way."""

from __future__ import annotations

from core.catalog import load_catalog
from core.llm.features import feature_of


def test_profile_table_shows_catalog_labels_for_values_and_references(qapp, llm_project, llm_server, llm_settings,
                                                                      shared_dir) -> None:
    from core.llm import classify
    from core.profile.agreement import compare, load_reference_values
    from core.profile.entries import build_profile
    from gui.profile.profile_model import AGREEMENT, DATABASE, FEATURE, VALUE, ProfileTableModel

    catalog = load_catalog()
    llm_server.add_rule("standard negation in the language", "1")
    llm_server.add_rule("strategies for forming polar questions", {"Interrogative intonation only": "1"})
    for fid in ("GB107", "116A*"):
        result = classify(llm_project.project, feature_of(fid), config="baseline", llm_settings=llm_settings)
        assert result.status == "ok"
    entries = build_profile(llm_project.project)
    agreement = compare(entries, load_reference_values([shared_dir / "cldf"], "nucl1235"))
    model = ProfileTableModel()
    model.set_profile(entries, agreement)
    shown = {model.data(model.index(r, FEATURE)): r for r in range(model.rowCount())}
    assert model.data(model.index(shown["GB107"], VALUE)) == "present"
    assert model.data(model.index(shown["GB257"], VALUE)) == "present"
    assert model.data(model.index(shown["GB260"], VALUE)) == "absent"
    reference = agreement.reference("GB107")
    assert model.data(model.index(shown["GB107"], DATABASE)) == \
        f"Grambank: {catalog.get('GB107').value_label(reference.code)}"
    assert model.data(model.index(shown["GB107"], AGREEMENT)) in ("agree", "disagree")
