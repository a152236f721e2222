"""The silicon-validation tables read the same from any clone: a case that cannot run names the repository's
folders relative to it, never this clone's absolute path."""
from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.foundations.measured import load_registry
from accel_sim.studies.silicon_validation import case_row


def test_not_runnable_reasons_hold_no_absolute_path():
    rows = [case_row(group, case) for group in load_registry() for case in group.cases
            if case.note.startswith("Not runnable")]   # the cases whose files say so (no simulation runs)
    reasons = [row["status"] for row in rows if row["status"].startswith("not runnable")]
    assert reasons, "the registry keeps cases that cannot run (QuickNet, Sputnik's best DLMC problem)"
    assert not any(str(REPO_ROOT) in reason for reason in reasons)
    assert any("workloads" in reason or "arch_configs" in reason for reason in reasons)
