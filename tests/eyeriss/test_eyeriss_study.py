"""The eyeriss study on AlexNet (the VGG-16 run is left to ``accel-sim reproduce eyeriss``)."""
from accel_sim.studies.eyeriss import eyeriss_study


def test_study_reads_the_registry_and_meets_the_latency_bars():
    out = eyeriss_study(workloads=("eyeriss_alexnet_conv",))
    frame = out.results.set_index("case")
    assert len(frame) == 28 and len(out.comparisons) == 28
    assert (frame.loc[[f"alexnet_conv{i}_active_pes" for i in range(1, 6)], "relative_error"] == 0).all()
    latency = frame.loc[[f"alexnet_conv{i}_latency" for i in range(1, 6)], "relative_error"]
    assert latency.abs().max() <= 0.15 and abs(frame.loc["alexnet_conv1_5_latency", "relative_error"]) <= 0.10
    assert frame.loc[[f"alexnet_conv{i}_dram" for i in range(1, 6)], "relative_error"].abs().max() <= 0.20
