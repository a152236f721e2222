"""Layers and networks: the shapes a model simulates.

A :class:`ConvLayer` covers dense, strided, padded, grouped and depthwise convolutions;
a :class:`GemmLayer` covers fully connected layers and plain matrix products; a
:class:`BatchedGemmLayer` is several GEMMs of one shape with their own operands (attention
heads), simulated as its :class:`GemmLayer` instances one after the other. Every
layer exposes the same GEMM view (:class:`GemmShape`): ``m`` output rows (output pixels
x batch), ``k`` reduction length, ``n`` output columns (filters), repeated ``groups``
times. Systolic-array dataflows work on that view.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class NMSparsity:
    """Structured N:M weight sparsity: at most ``n`` non-zeros in every ``m`` consecutive weights
    along the reduction dimension (Ampere 2:4, SCALE-Sim v3 layer-wise sparsity)."""

    n: int
    m: int

    def __post_init__(self) -> None:
        if not (1 <= self.n <= self.m):
            raise ValueError(f"N:M sparsity needs 1 <= N <= M, got {self.n}:{self.m}")

    @property
    def density(self) -> float:
        return self.n / self.m

    def __str__(self) -> str:
        return f"{self.n}:{self.m}"


# Granularities of Mao et al. 2017 ("Exploring the granularity of sparsity in CNNs"): element
# (unstructured), vector (1-D: a conv's kernel rows, a GEMM's runs of ``block`` weights along the
# reduction), kernel (2-D: a conv's R x S kernels), filter (3-D: whole output channels) and channel (whole
# input channels); plus N:M along the reduction and b x b blocks of the GEMM-view matrix.
WEIGHT_PATTERNS = ("unstructured", "nm", "block", "vector", "kernel", "filter", "channel")
# Patterns that remove whole output / input channels: the pipeline shrinks the layer (and its neighbour)
# unless ``compact`` is off (accel_sim.foundations.workload.structured).
COMPACTABLE_PATTERNS = ("filter", "channel")
MAX_STORED_BITS = 32  # widest stored weight value / index a layer may declare (float32 words)
MAX_SCALE_BITS = 64   # widest scale + zero point of one quantization group (two float32 values)
# Bits of one quantization group's scale and zero point when a layer gives only quant_group_size: a bf16 scale and
# a bf16 zero, as tinygemm packs them (pytorch/pytorch aten/src/ATen/native/cuda/int4mm.cu, _weight_int4pack_mm:
# scales_and_zeros of shape [K / groupSize, N, 2], bfloat16), the int4 kernel gpt-fast and torchao run.
DEFAULT_GROUP_SCALE_BITS = 32
ACTIVATION_PATTERNS = ("uniform", "clustered")
# Arithmetic a layer may ask for (``precision:`` of a workload layer): float, integer of k bits,
# fp8 (E4M3, as H100's tensor cores run it), ternary {-1, 0, +1} x alpha, binary {-1, +1} x alpha (XNOR-Net), signed powers of two (log2).
# None (the default) leaves the datapath to the accelerator's config.
PRECISIONS = ("fp32", "fp16", "fp8", "int16", "int8", "int4", "ternary", "binary", "log2")


def _precision_problems(precision: str | None) -> list[str]:
    if precision is None or precision in PRECISIONS:
        return []
    return [f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}"]


@dataclass(frozen=True)
class OperandSource:
    """Where a layer's concrete operand tensors come from (``accel_sim.foundations.workload.operands``).

    Generated: weights pruned from seeded Gaussian weights to ``weight_density`` with the
    given ``weight_pattern`` (``nm`` uses the layer's ``weight_sparsity``; ``block`` uses
    ``block`` x ``block`` blocks of the GEMM-view weight matrix; ``vector`` a conv's kernel rows or a
    GEMM's runs of ``block`` weights along the reduction; ``kernel`` a conv's R x S kernels; ``filter``
    removes whole output channels, ``channel`` whole input channels), inputs post-ReLU at
    ``input_density`` with ``activation_pattern``. Loaded: ``payload`` is a ``.npz`` file with
    ``weights`` and / or ``inputs`` arrays of the layer's shapes; what it lacks is generated.

    ``compact`` (filter / channel only): the removed channels leave the layer, which every family then
    runs as the smaller dense layer (and the neighbouring layer loses the matching input / output
    channels; :mod:`accel_sim.foundations.workload.structured`), as a deployed pruned model is; off,
    they stay in the full-size tensor as zeros (how sparse hardware sees them).
    """

    weight_pattern: str = "unstructured"
    activation_pattern: str = "uniform"
    block: int = 4
    seed: int = 0
    payload: str | None = None
    compact: bool = True

    def __post_init__(self) -> None:
        problems = []
        if self.weight_pattern not in WEIGHT_PATTERNS:
            problems.append(f"weight_pattern must be one of {', '.join(WEIGHT_PATTERNS)}, got {self.weight_pattern!r}")
        if self.activation_pattern not in ACTIVATION_PATTERNS:
            problems.append(f"activation_pattern must be one of {', '.join(ACTIVATION_PATTERNS)}, "
                            f"got {self.activation_pattern!r}")
        if self.block < 1:
            problems.append(f"block must be >= 1, got {self.block}")
        if problems:
            raise ValueError("; ".join(problems))


def _group_problems(layer: ConvLayer | GemmLayer, gemm: GemmShape | None) -> list[str]:
    """Group-wise quantization scales: a group is ``quant_group_size`` consecutive weights along the reduction
    (one scale, and a zero point, per group and output column), so the group must divide the reduction."""
    group, scale_bits = layer.quant_group_size, layer.quant_scale_bits
    if group is None:
        return [] if scale_bits is None else ["quant_scale_bits needs quant_group_size (the weights each scale covers)"]
    problems = []
    if group <= 0:
        problems.append(f"quant_group_size must be > 0, got {group}")
    elif gemm is not None and gemm.k % group:
        problems.append(f"quant_group_size {group} must divide the layer's reduction length k = {gemm.k} "
                        "(a group of weights shares one scale along k)")
    if scale_bits is not None and not 1 <= scale_bits <= MAX_SCALE_BITS:
        problems.append(f"quant_scale_bits must be in [1, {MAX_SCALE_BITS}], got {scale_bits}")
    return problems


def group_scale_bits(layer: object) -> int:
    """Bits stored per quantization group (scale and zero point); 0 without group-wise scales."""
    group = getattr(layer, "quant_group_size", None)
    if group is None:
        return 0
    bits = getattr(layer, "quant_scale_bits", None)
    return DEFAULT_GROUP_SCALE_BITS if bits is None else bits


def _storage_problems(layer: ConvLayer | GemmLayer, gemm: GemmShape | None) -> list[str]:
    """Cross-field rules on how a layer's weights are generated and stored.

    ``gemm`` is the layer's GEMM view, or None when its shape is already known to be wrong.
    """
    problems = []
    if layer.operands.weight_pattern == "nm" and layer.weight_sparsity is None:
        problems.append("weight_pattern 'nm' needs weight_sparsity (e.g. '2:4')")
    nm = layer.weight_sparsity
    if nm is not None and nm.n / nm.m < layer.weight_density < 1.0:
        # N:M keeps at most N of every M weights; a density above N/M cannot be met (1.0, the
        # default, means "no further pruning": the N:M density applies).
        problems.append(f"weight_density {layer.weight_density} contradicts weight_sparsity {nm.n}:{nm.m}, "
                        f"which keeps at most {nm.n / nm.m:g} of the weights; give a density <= {nm.n / nm.m:g} "
                        "or leave it out")
    for name in ("weight_bits", "index_bits", "quantized_weight_bits", "activation_bits"):
        bits = getattr(layer, name)
        if bits is not None and not 1 <= bits <= MAX_STORED_BITS:
            problems.append(f"{name} must be in [1, {MAX_STORED_BITS}], got {bits}")
    problems += _group_problems(layer, gemm)
    pattern = layer.operands.weight_pattern
    if pattern == "kernel" and not isinstance(layer, ConvLayer):
        problems.append("weight_pattern 'kernel' prunes R x S kernels: it needs a conv layer")
    if (pattern in COMPACTABLE_PATTERNS and layer.operands.compact and layer.operands.payload
            and layer.weight_density < 1.0):
        problems.append(f"weight_pattern '{pattern}' removes channels from generated weights, but this layer's "
                        "weights come from its payload; set compact: false (the payload is simulated as given)")
    if gemm is not None and layer.operands.weight_pattern == "block":
        b = layer.operands.block
        rows, columns = gemm.k, gemm.n * gemm.groups  # the GEMM-view matrix that is block-pruned
        if rows % b or columns % b:
            problems.append(f"block {b} does not divide the {rows} x {columns} weight matrix "
                            "(reduction x outputs); pick a block size that divides both")
    return problems


@dataclass(frozen=True)
class GemmShape:
    """Output (m x n) = input (m x k) @ weights (k x n), ``groups`` independent times; ``shared``
    consecutive groups read one weights operand (1: each group its own)."""

    m: int
    k: int
    n: int
    groups: int = 1
    shared: int = 1

    @property
    def macs(self) -> int:
        return self.m * self.k * self.n * self.groups


@dataclass(frozen=True)
class MaxPool:
    """A max-pool that follows a convolution: ``kernel`` x ``kernel`` windows every ``stride`` outputs, the
    map padded by ``padding`` on each side (padding never wins a max), e.g. ResNet's stem 3 / 2 / 1."""

    kernel: int
    stride: int
    padding: int = 0

    def out(self, size: int) -> int:
        """Pooled length of a ``size``-long side."""
        return (size + 2 * self.padding - self.kernel) // self.stride + 1

    def problems(self, out_h: int, out_w: int) -> list[str]:
        if self.kernel <= 0 or self.stride <= 0 or self.padding < 0:
            return [f"max_pool needs kernel and stride > 0 and padding >= 0, got {self.kernel}/{self.stride}/"
                    f"{self.padding}"]
        if 2 * self.padding > self.kernel:
            return [f"max_pool padding {self.padding} is more than half its kernel {self.kernel}"]
        if self.kernel > min(out_h, out_w) + 2 * self.padding:
            return [f"max_pool kernel {self.kernel} is larger than the padded {out_h} x {out_w} output"]
        return []


@dataclass(frozen=True)
class ConvLayer:
    """A convolution; ``weight_bits`` / ``index_bits`` as in :class:`GemmLayer`. ``max_pool`` (optional): the
    max-pool that follows it, for a family whose output stage pools before writing (lowbit)."""

    name: str
    in_h: int
    in_w: int
    in_channels: int
    out_channels: int
    kernel_h: int
    kernel_w: int
    stride_h: int = 1
    stride_w: int = 1
    pad_top: int = 0
    pad_bottom: int = 0
    pad_left: int = 0
    pad_right: int = 0
    groups: int = 1
    batch: int = 1
    weight_sparsity: NMSparsity | None = None
    weight_density: float = 1.0
    input_density: float = 1.0
    operands: OperandSource = field(default_factory=lambda: OperandSource())
    weight_bits: int | None = None
    index_bits: int | None = None
    quantized_weight_bits: int | None = None
    precision: str | None = None
    activation_bits: int | None = None
    quant_group_size: int | None = None
    quant_scale_bits: int | None = None
    weights_shared_by: int = 1   # consecutive groups that read one weights operand (a batched GEMM's, see
                                 # BatchedGemmLayer.operand_shared_by); 1: each group its own
    max_pool: MaxPool | None = None
    kind: str = field(default="conv", init=False)

    def __post_init__(self) -> None:
        problems = []
        for name in ("in_h", "in_w", "in_channels", "out_channels", "kernel_h", "kernel_w",
                     "stride_h", "stride_w", "groups", "batch"):
            if getattr(self, name) <= 0:
                problems.append(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("pad_top", "pad_bottom", "pad_left", "pad_right"):
            if getattr(self, name) < 0:
                problems.append(f"{name} must be >= 0, got {getattr(self, name)}")
        if not problems:
            if self.kernel_h > self.in_h + self.pad_top + self.pad_bottom:
                problems.append(f"kernel_h {self.kernel_h} is larger than the padded input height "
                                f"{self.in_h + self.pad_top + self.pad_bottom}")
            if self.kernel_w > self.in_w + self.pad_left + self.pad_right:
                problems.append(f"kernel_w {self.kernel_w} is larger than the padded input width "
                                f"{self.in_w + self.pad_left + self.pad_right}")
            if self.in_channels % self.groups or self.out_channels % self.groups:
                problems.append(f"in_channels {self.in_channels} and out_channels {self.out_channels} "
                                f"must both be divisible by groups {self.groups}")
            if self.weights_shared_by <= 0 or self.groups % self.weights_shared_by:
                problems.append(f"weights_shared_by {self.weights_shared_by} must divide groups {self.groups}")
        for name in ("weight_density", "input_density"):
            if not 0.0 < getattr(self, name) <= 1.0:
                problems.append(f"{name} must be in (0, 1], got {getattr(self, name)}")
        problems += _storage_problems(self, self.gemm() if not problems else None)
        problems += _precision_problems(self.precision)
        if self.max_pool is not None and not problems:
            problems += self.max_pool.problems(self.out_h, self.out_w)
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def out_h(self) -> int:
        return (self.in_h + self.pad_top + self.pad_bottom - self.kernel_h) // self.stride_h + 1

    @property
    def out_w(self) -> int:
        return (self.in_w + self.pad_left + self.pad_right - self.kernel_w) // self.stride_w + 1

    @property
    def is_depthwise(self) -> bool:
        return self.groups > 1 and self.groups == self.in_channels

    def gemm(self) -> GemmShape:
        return GemmShape(m=self.out_h * self.out_w * self.batch,
                         k=self.kernel_h * self.kernel_w * (self.in_channels // self.groups),
                         n=self.out_channels // self.groups, groups=self.groups, shared=self.weights_shared_by)

    @property
    def macs(self) -> int:
        return self.gemm().macs

    @property
    def input_elements(self) -> int:
        return self.in_h * self.in_w * self.in_channels * self.batch

    @property
    def weight_elements(self) -> int:
        return self.kernel_h * self.kernel_w * (self.in_channels // self.groups) * self.out_channels

    @property
    def output_elements(self) -> int:
        return self.out_h * self.out_w * self.out_channels * self.batch


@dataclass(frozen=True)
class GemmLayer:
    """Output (m x n) = input (m x k) @ weights (k x n). A fully connected layer at batch b
    is ``m = b``, ``k = in_features``, ``n = out_features``.

    ``weight_bits`` / ``index_bits`` (optional): bits per stored weight value and per sparse
    index of this layer (e.g. Deep Compression's weight-sharing code width); None leaves the
    choice to the accelerator or the storage format.

    ``quantized_weight_bits`` (optional): weight-only quantization. The k x n operand (weights,
    or an attention layer's KV cache) is stored and moved at this width and dequantized to the
    arch's word width before the multiply (INT8 / INT4 LLM weights, an INT8 KV cache); the math
    stays at the word width. Honoured by the tensor core, systolic, PE-array and DLU families;
    None: the word width.

    ``quant_group_size`` / ``quant_scale_bits`` (optional): group-wise quantization scales. Every
    ``quant_group_size`` consecutive weights along k of one output column share a scale and a zero point,
    ``quant_scale_bits`` bits together (default 32: a bf16 scale and a bf16 zero, tinygemm's
    ``scales_and_zeros`` [k / group, n, 2]); stored and moved with the weights (the tensor core family
    counts them at every level; every family counts them in the device-memory footprint). The group must
    divide k; a group of k is one scale per output channel.

    ``activation_bits`` (optional): the layer's activation precision (bits of each input value,
    a per-layer precision profile as Stripes profiles it); with ``weight_bits`` it is the precision
    the bit-serial family runs the layer at. None: the arch's word width."""

    name: str
    m: int
    k: int
    n: int
    weight_sparsity: NMSparsity | None = None
    weight_density: float = 1.0
    input_density: float = 1.0
    operands: OperandSource = field(default_factory=lambda: OperandSource())
    weight_bits: int | None = None
    index_bits: int | None = None
    quantized_weight_bits: int | None = None
    precision: str | None = None
    activation_bits: int | None = None
    quant_group_size: int | None = None
    quant_scale_bits: int | None = None
    kind: str = field(default="gemm", init=False)

    def __post_init__(self) -> None:
        problems = [f"{d} must be > 0, got {getattr(self, d)}" for d in ("m", "k", "n") if getattr(self, d) <= 0]
        for name in ("weight_density", "input_density"):
            if not 0.0 < getattr(self, name) <= 1.0:
                problems.append(f"{name} must be in (0, 1], got {getattr(self, name)}")
        problems += _storage_problems(self, self.gemm() if not problems else None)
        problems += _precision_problems(self.precision)
        if problems:
            raise ValueError("; ".join(problems))

    groups = 1

    def gemm(self) -> GemmShape:
        return GemmShape(m=self.m, k=self.k, n=self.n)

    @property
    def macs(self) -> int:
        return self.m * self.k * self.n

    @property
    def input_elements(self) -> int:
        return self.m * self.k

    @property
    def weight_elements(self) -> int:
        return self.k * self.n

    @property
    def output_elements(self) -> int:
        return self.m * self.n


Layer = ConvLayer | GemmLayer


@dataclass(frozen=True)
class BatchedGemmLayer:
    """``instances`` independent GEMMs of one shape, each with its own operands: a batched
    GEMM (attention heads x batch, the experts of a mixture-of-experts layer).

    ``output_i (m x n) = input_i (m x k) @ operand_i (k x n)`` for ``i < instances``. No
    family sees this layer: :func:`accel_sim.pipeline.simulate.simulate_layer` runs its instances
    (:meth:`instance`, plain :class:`GemmLayer` objects named ``name[i]``, whose operands are
    generated from their own seed stream since the name enters the seed) one after the
    other on the same hardware and adds their counters. The other fields mean what they
    mean on :class:`GemmLayer` and apply to every instance.

    ``operand_shared_by``: consecutive instances that read one and the same ``k x n`` operand (1: each its
    own), as a decode-attention kernel that runs one thread block per query head reads its KV head's cache
    once per query head of the group (instances ordered with the query head fastest, as the kernel's grid).
    A family that launches the instances in one kernel (:meth:`as_grouped`) sees the sharing and may serve
    the repeats from its cache; one that runs them one at a time reads each instance's operand again."""

    name: str
    instances: int
    m: int
    k: int
    n: int
    weight_sparsity: NMSparsity | None = None
    weight_density: float = 1.0
    input_density: float = 1.0
    operands: OperandSource = field(default_factory=lambda: OperandSource())
    weight_bits: int | None = None
    index_bits: int | None = None
    quantized_weight_bits: int | None = None
    precision: str | None = None
    activation_bits: int | None = None
    quant_group_size: int | None = None
    quant_scale_bits: int | None = None
    operand_shared_by: int = 1
    kind: str = field(default="batched_gemm", init=False)

    def __post_init__(self) -> None:
        if self.instances <= 0:
            raise ValueError(f"instances must be > 0, got {self.instances}")
        if self.operand_shared_by <= 0 or self.instances % self.operand_shared_by:
            raise ValueError(f"operand_shared_by {self.operand_shared_by} must divide instances {self.instances}")
        if self.operands.payload is not None:
            raise ValueError("a batched GEMM has no payload: each instance's operands are generated")
        self.instance(0)  # the shape and storage rules of one GEMM (ValueError naming the fields)

    def instance(self, index: int) -> GemmLayer:
        """The ``index``-th GEMM, as the layer a family simulates."""
        if not 0 <= index < self.instances:
            raise IndexError(f"{self.name}: instance {index} of {self.instances}")
        return GemmLayer(name=f"{self.name}[{index}]", m=self.m, k=self.k, n=self.n,
                         weight_sparsity=self.weight_sparsity, weight_density=self.weight_density,
                         input_density=self.input_density, operands=self.operands,
                         weight_bits=self.weight_bits, index_bits=self.index_bits,
                         quantized_weight_bits=self.quantized_weight_bits, precision=self.precision,
                         activation_bits=self.activation_bits, quant_group_size=self.quant_group_size,
                         quant_scale_bits=self.quant_scale_bits)

    def as_grouped(self) -> ConvLayer:
        """The instances as one grouped layer: a 1 x 1 convolution over ``m`` positions with
        ``instances`` groups of ``k`` input and ``n`` output channels, whose GEMM view is this
        layer's (``instances`` groups of m x k x n, each group its own weights and inputs). What
        a family that launches every instance in one kernel (a GPU's batched GEMM) simulates."""
        return ConvLayer(name=self.name, in_h=self.m, in_w=1, in_channels=self.k * self.instances,
                         out_channels=self.n * self.instances, kernel_h=1, kernel_w=1, groups=self.instances,
                         weight_sparsity=self.weight_sparsity, weight_density=self.weight_density,
                         input_density=self.input_density, operands=self.operands, weight_bits=self.weight_bits,
                         index_bits=self.index_bits, quantized_weight_bits=self.quantized_weight_bits,
                         precision=self.precision, activation_bits=self.activation_bits,
                         quant_group_size=self.quant_group_size, quant_scale_bits=self.quant_scale_bits,
                         weights_shared_by=self.operand_shared_by)

    def gemm(self) -> GemmShape:
        """``instances`` independent m x k x n GEMMs (the ``groups`` of the GEMM view)."""
        return GemmShape(m=self.m, k=self.k, n=self.n, groups=self.instances, shared=self.operand_shared_by)

    @property
    def macs(self) -> int:
        return self.instances * self.m * self.k * self.n

    @property
    def input_elements(self) -> int:
        return self.instances * self.m * self.k

    @property
    def weight_elements(self) -> int:
        return self.instances * self.k * self.n

    @property
    def output_elements(self) -> int:
        return self.instances * self.m * self.n


# Non-matrix operators of a transformer, run on the vector unit (accel_sim.models.vector_unit.plan.ops gives
# each one's work per element and per row).
VECTOR_OPS = ("softmax", "layernorm", "rmsnorm", "gelu", "silu", "relu", "swiglu", "rotary", "residual_add")


@dataclass(frozen=True)
class VectorLayer:
    """A non-matrix operator applied to ``rows`` vectors of ``width`` elements (softmax over
    each row of scores, a norm over each token's hidden vector, an element-wise activation,
    rotary embedding, residual addition). No family sees it: :func:`accel_sim.pipeline.simulate.simulate_layer`
    runs it on the arch's vector unit (:mod:`accel_sim.models.vector_unit`). No MACs.

    ``launches``: the layer ends a kernel of its own, which pays the vector unit's ``kernel_launch_cycles``
    (a GPU's launch gap; 0 on a pipelined accelerator). False: its work runs inside a kernel charged elsewhere,
    the next vector layer's when a compiler fuses consecutive element-wise operators into one kernel
    (:func:`accel_sim.foundations.workload.llm.generator.fuse_elementwise`), or a fused attention kernel's."""

    name: str
    op: str
    rows: int
    width: int
    launches: bool = True
    kind: str = field(default="vector", init=False)

    def __post_init__(self) -> None:
        problems = [f"{d} must be > 0, got {getattr(self, d)}" for d in ("rows", "width") if getattr(self, d) <= 0]
        if self.op not in VECTOR_OPS:
            problems.append(f"op must be one of {', '.join(VECTOR_OPS)}, got {self.op!r}")
        if self.op == "rotary" and self.width % 2:
            problems.append(f"rotary embedding rotates pairs of elements: width must be even, got {self.width}")
        if problems:
            raise ValueError("; ".join(problems))

    groups = 1
    macs = 0
    weight_elements = 0

    @property
    def elements(self) -> int:
        return self.rows * self.width

    @property
    def input_elements(self) -> int:
        return self.elements

    @property
    def output_elements(self) -> int:
        return self.elements


NetworkLayer = Layer | BatchedGemmLayer | VectorLayer  # what a workload holds; families see only Layer


def single_layers(layers: tuple[NetworkLayer, ...]) -> tuple[Layer, ...]:
    """``layers`` with every batched GEMM replaced by its instances, in order, and vector layers
    left out (what a per-layer tool that hands layers to a family or reads one weight tensor per
    layer iterates over)."""
    return tuple(one for layer in layers if not isinstance(layer, VectorLayer)
                 for one in ((layer.instance(i) for i in range(layer.instances))
                             if isinstance(layer, BatchedGemmLayer) else (layer,)))


@dataclass(frozen=True)
class ResidentMemory:
    """What a workload states about its device memory beyond its layers (``memory:`` of a workload
    file); :mod:`accel_sim.foundations.workload.memory` counts the rest."""

    batch: int | None = None            # sequences (or samples) per step: KV cache and activations scale with it
    other_weight_elements: int = 0      # parameters no layer reads (embeddings, norm gains)
    other_weight_bits: int | None = None  # their stored width (None: the arch's word)

    def __post_init__(self) -> None:
        if self.batch is not None and self.batch < 1:
            raise ValueError(f"memory.batch must be >= 1, got {self.batch}")
        if self.other_weight_elements < 0:
            raise ValueError(f"memory.other_weight_elements must be >= 0, got {self.other_weight_elements}")


@dataclass(frozen=True)
class Network:
    """An ordered list of layers, as read from one workload file."""

    name: str
    layers: tuple[NetworkLayer, ...]
    source: str = ""
    description: str = ""
    memory: ResidentMemory | None = None   # device memory beyond the layers (batch, embeddings)

    def __post_init__(self) -> None:
        if not self.layers:
            raise ValueError("a network needs at least one layer")
        seen: set[str] = set()
        dupes = sorted({layer.name for layer in self.layers if layer.name in seen or seen.add(layer.name)})
        if dupes:
            raise ValueError(f"layer names must be unique; repeated: {', '.join(dupes)}")

    @property
    def macs(self) -> int:
        return sum(layer.macs for layer in self.layers)
