"""The ``systolic:`` section of an arch config (family: systolic): the array and its three
double-buffered SRAMs, with SCALE-Sim v3's defaults."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.arch import SCALESIM
from accel_sim.foundations.compress.quantization.microscaling import BLOCK_FORMATS
from accel_sim.foundations.config.schema import spec_field

PLAIN_INT8 = "int8"    # block_format value: int8 elements with no block scales



@dataclass(frozen=True)
class BufferSpec:
    size: int = spec_field("Capacity of the on-chip SRAM buffer.", unit="size", positive=True)
    banks: int = spec_field("Number of independently addressed banks.", 1, positive=True,
                            source=f"{SCALESIM} (MemoryBanks: 1)")
    ports: int = spec_field("Ports per bank (reads + writes per cycle per bank).", 2, positive=True,
                            source=f"{SCALESIM} (SRAMBankPort: 2)")
    double_buffered: bool = spec_field(
        "Split the buffer in two halves so the next tile loads while the array uses the current one.",
        True, source=f"{SCALESIM} (double_buffered_scratchpad, active fraction 0.5)")


@dataclass(frozen=True)
class SystolicSpec:
    rows: int = spec_field("Processing-element rows of the array (SCALE-Sim ArrayHeight).", positive=True)
    cols: int = spec_field("Processing-element columns of the array (SCALE-Sim ArrayWidth).", positive=True)
    dataflow: str = spec_field("Which operand stays in the PEs: output (os), weight (ws) or input (is) stationary.",
                               choices=("os", "ws", "is"))
    ifmap_sram: BufferSpec = spec_field("Input feature map buffer.")
    filter_sram: BufferSpec = spec_field("Filter (weight) buffer.")
    ofmap_sram: BufferSpec = spec_field("Output feature map buffer.")
    nm_sparsity: bool = spec_field(
        "Exploit layer-wise N:M filter sparsity (SCALE-Sim v3 SparsitySupport, weight stationary only): "
        "the reduction dimension shrinks to N/M of its length on the array.", False, source=SCALESIM)
    sparse_mapping: str = spec_field(
        "How the array maps sparse filters when nm_sparsity is on (SCALE-Sim v3 [sparsity] OptimizedMapping): "
        "'layer_wise' (false) takes each layer's N:M from the workload; 'row_wise' (true) ignores it, draws "
        "for every filter an N in [1, row_block_size/2] from row_seed and packs the filter operand in "
        "ellpack_block form (every 2 blocks of row_block_size weights into row_block_size array rows).",
        "layer_wise", choices=("layer_wise", "row_wise"),
        source="SCALE-Sim 3.0.0 operand_matrix.create_filter_matrix, systolic_compute_ws (OptimizedMapping)")
    row_block_size: int = spec_field(
        "Row-wise sparsity block size (SCALE-Sim BlockSize, the M of each filter's N:M); row_wise only. "
        "Must be even and divide the array rows.", 4, positive=True,
        source="SCALE-Sim 3.0.0 scale_config (BlockSize, default 4)")
    row_seed: int = spec_field(
        "Seed of the per-filter N draws of row-wise sparsity (SCALE-Sim RandomNumberGeneratorSeed; numpy's "
        "legacy RandomState, reseeded for every layer); row_wise only.", 40, minimum=0, maximum=2**32 - 1,
        source="SCALE-Sim 3.0.0 scale_config (RandomNumberGeneratorSeed, default 40)")
    read_request_buffer: int = spec_field(
        "Outstanding DRAM read requests per operand buffer (SCALE-Sim ReadRequestBuffer).", 32,
        positive=True, source=f"{SCALESIM} (scale.cfg)")
    write_request_buffer: int = spec_field(
        "Outstanding DRAM write requests of the output buffer (SCALE-Sim WriteRequestBuffer).", 32,
        positive=True, source=f"{SCALESIM} (scale.cfg)")
    operand_fetch: str = spec_field(
        "How the ifmap / filter buffers fetch from DRAM (dram.bandwidth_mode user only). 'scalesim': SCALE-Sim "
        "v3's USER-mode scratchpads (each buffer prefetches before cycle 0, outside 'Total Cycles', and an operand "
        "overflowing half its buffer is re-fetched as its folds sweep it). 'streaming': a double-buffered operand "
        "stream: each fold's operand blocks (GEMM operand matrix, im2col view) are fetched once per use, one fold "
        "ahead of the array, on each operand's DRAM stream; an operand that fits half its buffer is fetched once; "
        "a layer takes about max(compute, DRAM words / bandwidth) plus the first fill (LLM decode).",
        "scalesim", choices=("scalesim", "streaming"),
        source="scalesim: SCALE-Sim 3.0.0 (tests/data/scalesim/user_ws_32x32_gemv); streaming: documented "
               "assumption, double buffering as in TPU v1's weight FIFO (Jouppi et al., ISCA 2017)")
    accumulator_bits: int = spec_field("Width of each PE's accumulator.", 32, positive=True,
                                       source="common practice for 8-bit MACs (TPU v1 uses 32-bit accumulators)")
    block_format: str = spec_field(
        "Operand format: 'none' (word_bits words) or a block-scaled one (OCP MX mxfp8_e4m3, mxfp8_e5m2, "
        "mxfp6_e3m2, mxfp6_e2m3, mxfp4, mxint8; nvfp4): ifmap and filter move as narrow elements plus one byte of "
        "scale per block of K, the PEs multiply at the element width, and each output's partial sum takes one "
        "scale application per block; outputs stay word_bits wide. Timing is SCALE-Sim's, in words: one MAC per "
        "PE per cycle at any width unless elements_per_pe packs several elements per PE word, DRAM streams in "
        "words per cycle. 'int8': plain int8 elements whose scales (per tensor or per channel) are applied outside "
        "the array, as on TPUs: no scale bytes or scale applications, no block; with elements_per_pe it must divide K.",
        "none", choices=("none", PLAIN_INT8, *BLOCK_FORMATS),
        source="OCP Microscaling Formats (MX) v1.0 Specification (2023); NVIDIA NVFP4 blog (2025); int8: Cloud TPU "
               "v5e documentation (docs.cloud.google.com/tpu/docs/v5e, int8 peak compute)")
    block_size: int = spec_field("Elements of K per scale; 0: the format's own (32 MX, 16 NVFP4).", 0, minimum=0,
                                 source="OCP Microscaling Formats (MX) v1.0 Specification (2023)")
    elements_per_pe: int = spec_field(
        "Block-scaled layers: narrow elements each PE multiplies per cycle, packed along K in one operand word "
        "(a multiplier that does 2 x 8-bit or 4 x 4-bit products per cycle): the array sees K / elements_per_pe "
        "packed words, so folds and cycles shrink with it, and each buffer word holds that many elements. 1: one "
        "element per PE and word (SCALE-Sim's word timing). Must divide the block, and elements_per_pe x the "
        "element width must fit word_bits.", 1, positive=True, maximum=16,
        source="Cloud TPU v5e documentation (docs.cloud.google.com/tpu/docs/v5e): 197 TFLOPs bf16 and 393 TOPs "
               "int8 per chip on the same four MXUs (systolic arrays), i.e. 2 int8 products per PE per cycle")

    def __post_init__(self) -> None:
        if self.elements_per_pe > 1 and self.block_format == "none":
            raise ValueError(f"systolic.elements_per_pe {self.elements_per_pe} packs narrow elements: it needs a "
                             "block_format (word_bits operands are one per PE word)")
        if self.nm_sparsity and self.dataflow != "ws":
            raise ValueError("systolic.nm_sparsity is supported with dataflow 'ws' only (as in SCALE-Sim v3)")
        if self.streaming and self.row_wise:
            raise ValueError("systolic.operand_fetch 'streaming' supports dense and layer-wise N:M filters only, "
                             "not sparse_mapping 'row_wise'")
        if self.row_wise:
            if self.row_block_size < 2 or self.row_block_size % 2:
                raise ValueError(f"systolic.row_block_size (SCALE-Sim BlockSize) {self.row_block_size} must be even "
                                 "and at least 2 "
                                 "(each filter keeps N in [1, row_block_size/2] of every row_block_size weights)")
            if self.rows % self.row_block_size:
                raise ValueError(f"systolic.row_block_size (SCALE-Sim BlockSize) {self.row_block_size} does not "
                                 f"divide the array's {self.rows} rows (ArrayHeight)")

    @property
    def streaming(self) -> bool:
        """Operand blocks stream from DRAM fold by fold (``operand_fetch: streaming``)."""
        return self.operand_fetch == "streaming"

    @property
    def row_wise(self) -> bool:
        """Row-wise (SCALE-Sim OptimizedMapping) sparsity is on."""
        return self.nm_sparsity and self.sparse_mapping == "row_wise"
