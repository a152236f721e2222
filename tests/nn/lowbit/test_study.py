"""The ``low-bit-training`` study's table and comparison rows, with untrained networks (0 epochs: the
structure, not the accuracies; the full schedule runs in ``accel-sim reproduce low-bit-training`` and benchmarks/bench_lowbit_training.py)."""
from dataclasses import replace

import pandas as pd

from accel_sim.systems.nn.lowbit.train import LOWBIT_SCHEDULE
from accel_sim.studies.low_bit_training import (
    BAR_MAX_LOSS_POINTS,
    BAR_SOURCE,
    QUANTIZED_ENDS,
    VARIANTS,
    comparisons,
    low_bit_training_table,
)
from accel_sim.studies.registry import all_studies, comparison_frame


def test_study_table_rows_reference_columns_and_bar_rows():
    untrained = replace(LOWBIT_SCHEDULE, epochs=0, hidden=(32,))
    frame = low_bit_training_table(untrained, untrained, inq_stage_epochs=0)
    assert len(frame) == 2 * len(VARIANTS) + len(QUANTIZED_ENDS)
    assert set(frame.network) == {"mlp", "cnn"}
    fp32 = frame[frame.label == "fp32"]
    assert (fp32.loss_vs_fp32_points == 0).all()
    xnor = frame[(frame.label == "XNOR-Net") & frame.full_precision_ends].iloc[0]
    assert xnor.paper_dataset == "ImageNet" and xnor.paper_method_accuracy == 44.2 and "ECCV 2016" in xnor.paper_source
    table = comparison_frame(comparisons(frame))
    published = table[table.published.notna() & ~table.source.eq(BAR_SOURCE)]
    assert published.quantity.str.contains("DIFFERENT data set").all() and len(published) == 5
    bars = table[table.source == BAR_SOURCE]
    assert len(bars) == 2 + len(BAR_MAX_LOSS_POINTS) and bars.tolerance.notna().all()
    assert isinstance(table, pd.DataFrame) and "low-bit-training" in all_studies()
