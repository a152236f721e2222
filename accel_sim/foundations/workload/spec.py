"""Schema of workload files (``workloads/*.yaml``), turned into :class:`Network` objects.

One entry per layer::

    - {name: conv1, type: conv, in_h: 224, in_w: 224, in_channels: 3,
       out_channels: 64, kernel: 7, stride: 2, padding: 3}
    - {name: fc, type: fc, in_features: 512, out_features: 1000}
    - {name: qk, type: gemm, m: 128, k: 64, n: 128}
    - {name: scores, type: batched_gemm, instances: 12, m: 128, k: 64, n: 128}   # one GEMM per head
    - {name: probs, type: vector, op: softmax, m: 1536, n: 128}   # m rows of n elements, vector unit
    - {name: add, type: vector, op: residual_add, m: 1, n: 4096, launches: false}   # fused into the next kernel
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field
from accel_sim.foundations.workload.layer import (
    ACTIVATION_PATTERNS,
    PRECISIONS,
    WEIGHT_PATTERNS,
    BatchedGemmLayer,
    ConvLayer,
    GemmLayer,
    MaxPool,
    NetworkLayer,
    NMSparsity,
    OperandSource,
    VECTOR_OPS,
    VectorLayer,
)

_CONV_ONLY = ("in_h", "in_w", "in_channels", "out_channels", "kernel", "kernel_h", "kernel_w",
              "stride", "stride_h", "stride_w", "padding", "pad_top", "pad_bottom", "pad_left",
              "pad_right", "groups")

# Every field of a layer entry, by what it does (tests/input/test_fields_honoured.py walks them against
# every family): its shape; a description of its operands (every family counts on operands generated or
# loaded from these: a family without zero skipping computes the zeros, macs_skipped 0); or a request to
# the hardware, which a family honours or reports (accel_sim.pipeline.honoured).
FIELD_KINDS = {
    "shape": ("name", "type", "op", "launches", *_CONV_ONLY, "in_features", "out_features", "batch", "m", "k", "n",
              "instances"),
    "operands": ("weight_sparsity", "weight_density", "input_density", "weight_pattern", "activation_pattern",
                 "block", "compact", "seed", "operands"),
    # ask the hardware for a datapath width: honoured, or reported (pipeline/honoured.py), or refused
    "request": ("precision", "quantized_weight_bits", "activation_bits", "quant_group_size", "quant_scale_bits",
                "max_pool"),
    # describe the model as stored (Deep Compression's code widths, read by `accel-sim storage`); the
    # bitserial family also runs at weight_bits. Not a request to the other families: nothing to report
    "storage": ("weight_bits", "index_bits"),
}


def parse_max_pool(text: str) -> MaxPool:
    """``"3/2/1"`` -> MaxPool(kernel 3, stride 2, padding 1); ``"2/2"``: padding 0. Raises ValueError with the
    expected form."""
    parts = str(text).strip().split("/")
    if len(parts) not in (2, 3) or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"max_pool: expected kernel/stride or kernel/stride/padding like '3/2/1', got {text!r}")
    return MaxPool(*(int(p) for p in parts))


def parse_nm(text: str) -> NMSparsity:
    """``"2:4"`` -> NMSparsity(2, 4); raises ValueError with the expected form."""
    parts = str(text).strip().split(":")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"expected N:M sparsity like '2:4', got {text!r}")
    return NMSparsity(int(parts[0]), int(parts[1]))


@dataclass(frozen=True)
class LayerEntry:
    name: str = spec_field("Unique layer name.")
    type: str = spec_field("Layer kind: convolution, fully connected, a plain matrix product, a batched "
                           "matrix product (instances GEMMs of one shape, each with its own operands), or a "
                           "non-matrix operator on the vector unit (vector: op over m rows of n elements).",
                           choices=("conv", "fc", "gemm", "batched_gemm", "vector"))
    op: str | None = spec_field("vector: the operator, applied to each of m rows of n elements.", None,
                                choices=VECTOR_OPS)
    launches: bool | None = spec_field(
        "vector: the layer ends a kernel of its own and pays the vector unit's kernel_launch_cycles (true, the "
        "default); false: it runs inside the next vector layer's kernel, as a compiler fuses consecutive "
        "element-wise operators (torch.compile / TorchInductor, TensorRT-LLM), or inside a fused attention kernel.",
        None)
    in_h: int | None = spec_field("conv: input height (rows of the input feature map).", None)
    in_w: int | None = spec_field("conv: input width.", None)
    in_channels: int | None = spec_field("conv: input channels C.", None)
    out_channels: int | None = spec_field("conv: output channels K (number of filters).", None)
    kernel: int | None = spec_field("conv: square kernel size (sets kernel_h and kernel_w).", None)
    kernel_h: int | None = spec_field("conv: kernel height R.", None)
    kernel_w: int | None = spec_field("conv: kernel width S.", None)
    stride: int | None = spec_field("conv: stride in both directions.", None)
    stride_h: int | None = spec_field("conv: vertical stride.", None)
    stride_w: int | None = spec_field("conv: horizontal stride.", None)
    padding: int | None = spec_field("conv: zero padding on all four sides.", None)
    pad_top: int | None = spec_field("conv: zero rows above the input.", None)
    pad_bottom: int | None = spec_field("conv: zero rows below the input.", None)
    pad_left: int | None = spec_field("conv: zero columns left of the input.", None)
    pad_right: int | None = spec_field("conv: zero columns right of the input.", None)
    groups: int = spec_field("conv: channel groups (groups == in_channels is depthwise).", 1)
    in_features: int | None = spec_field("fc: input vector length.", None, minimum=1)
    out_features: int | None = spec_field("fc: output vector length.", None, minimum=1)
    batch: int = spec_field("conv / fc: batch size.", 1, minimum=1)
    m: int | None = spec_field("gemm: rows of the input and output matrices.", None)
    k: int | None = spec_field("gemm: reduction length.", None)
    n: int | None = spec_field("gemm: columns of the weight and output matrices.", None)
    instances: int | None = spec_field(
        "batched_gemm: independent GEMMs of the m, k, n shape (e.g. attention heads x batch), each with "
        "its own generated operands; simulated one after the other, their counters added.", None, minimum=1)
    weight_sparsity: str | None = spec_field("Structured N:M weight sparsity, e.g. '2:4'.", None)
    weight_density: float = spec_field("Fraction of non-zero weights (1.0 = dense).", 1.0)
    input_density: float = spec_field("Fraction of non-zero input activations (1.0 = dense).", 1.0)
    weight_pattern: str = spec_field(
        "How generated weights are pruned to weight_density (Mao et al. 2017's granularities): unstructured "
        "magnitude, N:M (needs weight_sparsity), block x block blocks of the GEMM-view weight matrix, vector "
        "(a conv's kernel rows; a GEMM's runs of block weights along the reduction), kernel (a conv's R x S "
        "kernels), filter (whole output channels) or channel (whole input channels).",
        "unstructured", choices=WEIGHT_PATTERNS)
    activation_pattern: str = spec_field(
        "Where generated non-zero input activations sit: uniformly random, or in spatial clusters.",
        "uniform", choices=ACTIVATION_PATTERNS)
    block: int = spec_field("Block side for weight_pattern 'block'; run length for 'vector' on a GEMM.", 4,
                            positive=True)
    compact: bool = spec_field(
        "weight_pattern filter / channel: remove the pruned channels, so every family runs the smaller dense "
        "layer and the next layer (previous, for channel) loses the matching input (output) channels, as a "
        "deployed pruned model does; false keeps them as zeros in the full-size tensor (sparse hardware's view).",
        True)
    seed: int | None = spec_field("Seed of this layer's generated operands (default: the workload's seed).", None)
    weight_bits: int | None = spec_field(
        "Bits per stored weight value of this layer (e.g. Deep Compression's weight-sharing code: "
        "8 for conv, 5 for fc); unset leaves it to the accelerator or the storage command.",
        None, minimum=1, maximum=32)
    index_bits: int | None = spec_field(
        "Bits per sparse (relative) index of this layer's stored weights (Deep Compression: 4 for "
        "AlexNet, 5 for VGG-16 and the LeNets); unset leaves it to the storage format.",
        None, minimum=1, maximum=32)
    quantized_weight_bits: int | None = spec_field(
        "Weight-only quantization: bits of each weight (k x n operand; an attention layer's KV cache) as "
        "stored in DRAM and on chip, dequantized to the arch's word width before the multiply (INT8 / INT4 "
        "LLM weights, INT8 KV cache). Honoured by tensor_core, systolic, pe_array and dlu; unset: the word width.",
        None, minimum=1, maximum=32)
    quant_group_size: int | None = spec_field(
        "Group-wise quantization: consecutive weights along the reduction k of one output column that share a "
        "scale and a zero point (e.g. 32, 64, 128, as GPTQ / AWQ / tinygemm group them; k: one per output "
        "channel). Must divide k. The scales are stored and moved with the weights (the tensor_core family counts "
        "them in DRAM, L2 and shared-memory traffic; every family in the device-memory footprint). Unset: no "
        "group scales counted.", None, source="pytorch/pytorch aten/src/ATen/native/cuda/int4mm.cu (qGroupSize "
        "32 / 64 / 128 / 256)")
    quant_scale_bits: int | None = spec_field(
        "Bits of one group's scale and zero point together (needs quant_group_size); unset: 32, a bf16 scale and "
        "a bf16 zero as tinygemm packs scales_and_zeros [k / group, n, 2]; 16: a scale alone (symmetric).",
        None, minimum=1, maximum=64, source="pytorch/pytorch aten/src/ATen/native/cuda/int4mm.cu "
        "(_weight_int4pack_mm: qScaleAndZeros of shape [numQGroups, n, 2])")
    activation_bits: int | None = spec_field(
        "Bits of this layer's input activations (a per-layer precision profile, e.g. Stripes' 9-8-5-5-7 for "
        "AlexNet's convolutions); with weight_bits, the precision the bitserial family runs the layer at. "
        "Unset: the arch's word width.", None, minimum=1, maximum=32)
    precision: str | None = spec_field(
        "Arithmetic of this layer's datapath: fp32, fp16, int16 / int8 / int4, ternary, binary (XNOR + popcount) "
        "or log2 (signed powers of two, shift-add); honoured by the lowbit and dlu families. Unset: the "
        "accelerator's configured type (BMXNet keeps the first and last layers at full precision).",
        None, choices=PRECISIONS)
    max_pool: str | None = spec_field(
        "conv: the max-pool that follows the layer, kernel/stride/padding (e.g. '3/2/1', ResNet's stem pool; "
        "'2/2': padding 0). A family whose output stage pools before writing (lowbit, as FINN's streaming "
        "max-pool unit) writes the pooled map; the others report it. Unset: no pool (pools are not layers).",
        None, source="Xilinx/finn-hlslib maxpool.h (StreamingMaxPool: pooling on the output stream)")
    operands: str | None = spec_field(
        "A .npz payload (path relative to the workload file) with real 'weights' and / or 'inputs' "
        "arrays of this layer's shapes; what it lacks is generated.", None)

    def to_layer(self, seed: int = 0, base_dir: str = "") -> NetworkLayer:
        """Build the layer; raises ValueError naming the fields that are wrong or missing."""
        nm = parse_nm(self.weight_sparsity) if self.weight_sparsity is not None else None
        payload = self.operands
        if payload is not None and base_dir and not os.path.isabs(payload):
            payload = os.path.join(base_dir, payload)
        if payload is not None and not os.path.isfile(payload):
            raise ValueError(f"operands: payload file {payload} not found")
        source = OperandSource(weight_pattern=self.weight_pattern, activation_pattern=self.activation_pattern,
                               block=self.block, seed=seed if self.seed is None else self.seed, payload=payload,
                               compact=self.compact)
        common = dict(name=self.name, weight_sparsity=nm, weight_density=self.weight_density,
                      input_density=self.input_density, operands=source, weight_bits=self.weight_bits,
                      index_bits=self.index_bits, quantized_weight_bits=self.quantized_weight_bits,
                      precision=self.precision, activation_bits=self.activation_bits,
                      quant_group_size=self.quant_group_size, quant_scale_bits=self.quant_scale_bits)
        if self.type == "conv":
            self._require("in_h", "in_w", "in_channels", "out_channels")
            self._agree("kernel", "kernel_h", "kernel_w")
            self._agree("stride", "stride_h", "stride_w")
            self._agree("padding", "pad_top", "pad_bottom", "pad_left", "pad_right")
            kh = _pick(self.kernel_h, self.kernel, None)
            kw = _pick(self.kernel_w, self.kernel, None)
            if kh is None or kw is None:
                raise ValueError("conv needs 'kernel' or both 'kernel_h' and 'kernel_w'")
            pad = self.padding or 0
            return ConvLayer(
                in_h=self.in_h, in_w=self.in_w, in_channels=self.in_channels,
                out_channels=self.out_channels, kernel_h=kh, kernel_w=kw,
                stride_h=_pick(self.stride_h, self.stride, 1), stride_w=_pick(self.stride_w, self.stride, 1),
                pad_top=_pick(self.pad_top, pad, 0), pad_bottom=_pick(self.pad_bottom, pad, 0),
                pad_left=_pick(self.pad_left, pad, 0), pad_right=_pick(self.pad_right, pad, 0),
                groups=self.groups, batch=self.batch,
                max_pool=parse_max_pool(self.max_pool) if self.max_pool is not None else None, **common)
        self._forbid(*_CONV_ONLY, "max_pool")
        if self.type == "vector":
            self._require("op", "m", "n")
            self._forbid("k", "instances", "in_features", "out_features", "operands", "weight_sparsity",
                         "weight_bits", "index_bits", "quantized_weight_bits", "activation_bits",
                         "quant_group_size", "quant_scale_bits")
            return VectorLayer(name=self.name, op=self.op, rows=self.m, width=self.n,
                               launches=True if self.launches is None else self.launches)
        self._forbid("op", "launches")
        if self.type == "batched_gemm":
            self._require("instances", "m", "k", "n")
            self._forbid("in_features", "out_features", "operands")
            return BatchedGemmLayer(instances=self.instances, m=self.m, k=self.k, n=self.n, **common)
        self._forbid("instances")
        if self.type == "fc":
            self._require("in_features", "out_features")
            self._forbid("m", "k", "n")
            return GemmLayer(m=self.batch, k=self.in_features, n=self.out_features, **common)
        self._require("m", "k", "n")
        self._forbid("in_features", "out_features")
        return GemmLayer(m=self.m, k=self.k, n=self.n, **common)

    def _agree(self, both: str, *each: str) -> None:
        """A field that sets both directions (``kernel``) may be given with a per-direction one
        (``kernel_h``) only when they agree: which should win is not guessable."""
        value = getattr(self, both)
        clash = [f"{n}: {getattr(self, n)}" for n in each if value is not None and getattr(self, n) not in (None, value)]
        if clash:
            raise ValueError(f"{both}: {value} conflicts with {', '.join(clash)}; give {both} alone, or only "
                             f"{' / '.join(each)}")

    def _require(self, *names: str) -> None:
        missing = [n for n in names if getattr(self, n) is None]
        if missing:
            raise ValueError(f"a {self.type} layer needs {', '.join(missing)}")

    def _forbid(self, *names: str) -> None:
        given = [n for n in names if getattr(self, n) is not None and not (n == "groups" and self.groups == 1)]
        if given:
            raise ValueError(f"a {self.type} layer does not take {', '.join(given)}")


def _pick(*values):
    for v in values:
        if v is not None:
            return v
    return None


@dataclass(frozen=True)
class MemoryEntry:
    batch: int | None = spec_field(
        "Sequences (or samples) per step: the KV cache and activations scale with it, so a run that does not "
        "fit device memory is told the largest batch that does.", None, positive=True)
    other_weight_elements: int = spec_field(
        "Parameters resident in device memory that no layer reads (token and position embeddings, norm gains; "
        "written by import-hf).", 0, minimum=0)
    other_weight_bits: int | None = spec_field("Stored width of those parameters (default: the arch's word).",
                                               None, positive=True)


@dataclass(frozen=True)
class WorkloadSpec:
    name: str = spec_field("Short name used in reports.")
    layers: tuple[LayerEntry, ...] = spec_field("The layers, in execution order.")
    description: str = spec_field("Free text: what this network is.", "")
    source: str = spec_field("Where the layer shapes come from (paper, model zoo).", "")
    seed: int = spec_field("Seed of the generated operands (weights, activations) of every layer.", 0)
    memory: MemoryEntry | None = spec_field(
        "Device memory beyond the layers (accel_sim/foundations/workload/memory.py): the batch and the "
        "parameters no layer reads. Without it the footprint is the layers' weights, KV cache and activations.",
        None)
