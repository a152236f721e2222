"""Tutorial 4 runs top to bottom and its key results hold (sweep, resume, Pareto front, store)."""
import pytest

from tests.tutorials.runner import run_tutorial


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return run_tutorial(tmp_path_factory, "04_design_a_sparse_accelerator.py")


def test_figures_are_written(tutorial):
    _, out = tutorial
    for name in ("04_pareto_cycles_energy.png", "04_cycles_vs_pes.png", "04_sensitivity_edp.png"):
        assert (out / name).stat().st_size > 10_000, name


def test_nm_metadata_costs_a_quarter_of_the_kept_values(tutorial):
    g, _ = tutorial
    # 2 of 4 values kept (8 bits each) + 2 position bits per kept value = 20 of the 32 dense bits.
    assert g["NM_STORAGE_RATIO"] == pytest.approx(20 / 32)
    assert (g["storage"]["metadata_bits"] * 4 == g["storage"]["values_bits"]).all()


def test_nm_support_skips_half_the_macs_and_is_faster(tutorial):
    g, _ = tutorial
    dense, sparse = g["dense_total"], g["sparse_total"]
    assert sparse["macs_issued"] * 2 == dense["macs_issued"]
    assert sparse["macs_issued"] + sparse["macs_skipped"] == dense["macs_dense"]
    assert g["HAND_SPEEDUP"] > 2 and g["HAND_ENERGY_RATIO"] < 1.0   # more than 2x: the fc layer is DRAM-bound
    assert g["FC_DRAM_RATIO"] > 2


def test_resume_recomputes_nothing_and_extension_only_new_points(tutorial):
    g, _ = tutorial
    first, again, grown = g["first"], g["again"], g["grown"]
    assert (first.points, first.computed, first.already_stored) == (16, 16, 0)
    assert (again.computed, again.already_stored) == (0, 16)
    assert (grown.points, grown.computed, grown.already_stored) == (20, 4, 16)
    assert list(g["runs"]["computed"]) == [16, 0, 4]


def test_pareto_front_is_non_dominated_and_complete(tutorial):
    g, _ = tutorial
    frame, front, objectives = g["frame"], g["front_3d"], g["OBJECTIVES_3D"]
    assert len(frame) == 20
    values = frame[objectives].to_numpy()
    on_front = frame.index.isin(front.index)
    for i, row in enumerate(values):
        dominated = ((values <= row).all(axis=1) & (values < row).any(axis=1)).any()
        assert dominated != on_front[i], frame.iloc[i][objectives].to_dict()
    assert g["FRONT_NM_SHARE"] == 1.0           # every Pareto-optimal design supports N:M
    front_2d = g["front_2d"]                     # what the prose says about the fronts
    assert list(front_2d["array"]) == ["32/32", "64/64"] and (front_2d["filter_kib"] == 64).all()
    assert set(front_2d.index) <= set(front.index) and "16/16" in set(front["array"])


def test_the_largest_array_is_not_the_fastest(tutorial):
    best = tutorial[0]["best_by_array"]
    assert best["64/64"] >= best["32/32"] and best["32/32"] < best["16/16"] < best["8/8"]


def test_nm_support_never_hurts_in_the_sweep(tutorial):
    g, _ = tutorial
    frame = g["frame"]
    pairs = frame.pivot_table(index=["array", "filter_kib"], columns="systolic.nm_sparsity", values="cycles",
                              observed=True)
    assert (pairs[True] < pairs[False]).all()


def test_store_read_by_hand_matches_load_results(tutorial):
    g, _ = tutorial
    assert g["STORE_MATCHES"]
    assert set(g["tables"]["name"]) == {"meta", "points", "results", "runs"}


def test_area_energy_front_and_throughput_per_area(tutorial):
    g, out = tutorial
    frame, front = g["frame"], g["front_area"]
    assert (out / "04_pareto_area_energy.png").stat().st_size > 10_000
    assert frame["area_mm2"].gt(0).all() and "throughput_macs_per_cycle_mm2" in frame
    values = frame[g["OBJECTIVES_AREA"]].to_numpy()
    on_front = frame.index.isin(front.index)
    for i, row in enumerate(values):
        dominated = ((values <= row).all(axis=1) & (values < row).any(axis=1)).any()
        assert dominated != on_front[i]
    assert len(front) >= 3 and (front["nm"] == "N:M on").all()   # what the prose says
    assert front["area_mm2"].min() == frame["area_mm2"].min()
    assert front["energy_pj"].min() == frame["energy_pj"].min()
    assert g["BEST_PER_AREA"] == "16/16"
    assert set(front["array"]) >= {"8/8", "16/16", "32/32", "64/64"}
    assert (front["static_energy_pj"] < 0.02 * front["energy_pj"]).all()
