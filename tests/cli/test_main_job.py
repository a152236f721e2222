"""The main job (``accel-sim run`` without --arch / --workload, the README's first command) shows what
compression buys: ResNet-18 dense, pruned, filter-pruned, 2:4 and int4 on the default array and its N:M variant, side by
side, with a line saying what to read; a sparse design's speed-up and non-zero macs_skipped are in it."""
import csv

from accel_sim.cli.main import main
from accel_sim.pipeline.report.compression import READ_LINE, VARIANTS


def test_run_without_arguments_prints_the_side_by_side(capsys):
    assert main(["run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("resnet18: what compression buys") and "tpu_like_128x128_ws_nm" in out[0]
    rows = {line.split()[0]: line.split() for line in out[3:3 + len(VARIANTS)]}
    assert list(rows) == list(VARIANTS)
    assert rows["2:4"][-6] != "1.00x" and rows["2:4"][-1] != "0"   # the N:M design: speed-up, MACs skipped
    assert rows["dense"][2] == "1.00x"
    assert float(rows["filter-pruned"][2].rstrip("x")) > 1.3   # dense hardware: the pruned layers shrink
    assert out[-1] == READ_LINE


def test_readme_first_command_writes_the_comparison(tmp_path, capsys):
    assert main(["run", "--out", str(tmp_path / "quickstart"), "--no-figure"]) == 0
    with open(tmp_path / "quickstart" / "comparison.csv") as f:
        rows = list(csv.DictReader(f))
    assert {(r["variant"], r["design"]) for r in rows} == {(v, d) for v in VARIANTS
                                                          for d in ("tpu_like_128x128_ws", "tpu_like_128x128_ws_nm")}
    best = max(float(r["speedup"]) for r in rows if r["speedup"])
    assert best > 1.5 and any(float(r["macs_skipped"] or 0) > 0 for r in rows)
    assert (tmp_path / "quickstart" / "layers.csv").is_file()


def test_one_design_still_runs_the_per_layer_table(capsys):
    assert main(["run", "--arch", "tpu_like_128x128_ws"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("resnet18 on tpu_like_128x128_ws (systolic, 21 layers)") and "util: MACs issued" in out


def test_filter_pruned_variant_halves_the_blocks_first_convolutions():
    """Li et al. 2017's ResNet rule: each residual block's first conv loses half its filters and the block's
    second conv the matching inputs; the shortcut-fed layers keep their shapes."""
    from accel_sim.foundations.workload.loader import load_workload
    from accel_sim.foundations.workload.structured import compact_network
    from accel_sim.pipeline.report.compression import compression_variants

    base = load_workload("resnet18")
    pruned = {layer.name: layer for layer in compact_network(compression_variants(base)["filter-pruned"]).layers}
    for layer in base.layers:
        shrunk = pruned[layer.name]
        if layer.name.startswith("layer") and layer.name.endswith("_conv1"):
            assert shrunk.out_channels == layer.out_channels // 2 and shrunk.macs == layer.macs // 2
        elif layer.name.endswith("_conv2"):
            assert shrunk.in_channels == layer.in_channels // 2 and shrunk.out_channels == layer.out_channels
        else:
            assert shrunk == layer
