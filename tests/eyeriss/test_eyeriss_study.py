"""The eyeriss study on AlexNet (the VGG-16 run is left to ``accel-sim reproduce eyeriss``)."""
from accel_sim.studies.eyeriss import eyeriss_study


def test_study_reads_the_registry_and_meets_the_latency_bars():
    out = eyeriss_study(workloads=("eyeriss_alexnet_conv",), v2=False)
    frame = out.results.set_index("case")
    assert len(frame) == 28 and len(out.comparisons) == 28
    assert (frame.loc[[f"alexnet_conv{i}_active_pes" for i in range(1, 6)], "relative_error"] == 0).all()
    latency = frame.loc[[f"alexnet_conv{i}_latency" for i in range(1, 6)], "relative_error"]
    assert latency.abs().max() <= 0.15 and abs(frame.loc["alexnet_conv1_5_latency", "relative_error"]) <= 0.10
    assert frame.loc[[f"alexnet_conv{i}_dram" for i in range(1, 6)], "relative_error"].abs().max() <= 0.20


def test_v2_rows_are_post_layout_and_not_registry_cases():
    from accel_sim.foundations.measured import load_group
    from accel_sim.studies.eyeriss import CASES, v2_compare
    frame, comparisons = v2_compare()
    assert len(frame) == 4 and (frame.kind == "post-layout simulation").all()
    assert all("post-layout simulation, not measured" in c.source for c in comparisons)
    assert not {c.workload for c in load_group(CASES).cases} & set(frame.workload)
    throughput = frame[frame.quantity == "inferences_per_s"].relative_error
    assert throughput.abs().max() <= 0.25        # both throughputs within issue 34's bar
