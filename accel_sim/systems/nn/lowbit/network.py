"""The two digits networks of the low-bit study, built for one method.

- ``mlp``: ``64 -> hidden... -> 10`` fully connected (the LeNet-300-100-style sizes of
  :mod:`accel_sim.systems.nn.training`), each layer followed by batch norm and, except the last, the
  method's activation;
- ``cnn``: LeNet-5-like on the 8 x 8 images: conv 3x3 (1 -> 16, same padding), 2x2 max pool,
  batch norm, activation; conv 3x3 (16 -> 32), pool, batch norm, activation; fully connected
  128 -> 64, batch norm, activation; fully connected 64 -> 10, batch norm.

Batch norm after the last layer (as in BNN) keeps the logits of a +-1-weight output layer in
range; every method, float32 included, uses the same architecture. Each GEMM layer gets the
method's quantizers, except the first layer's weights and the last layer's weights and input
when ``full_precision_ends`` is set; the first layer's input (the pixels, 17 levels) is never
quantized.
"""
from __future__ import annotations

import numpy as np

from accel_sim.systems.nn.lowbit.activations import Activation
from accel_sim.systems.nn.lowbit.layers import BatchNorm, Flatten, GemmLayer, MaxPool2, Quantizers
from accel_sim.systems.nn.lowbit.methods import METHODS, LowBitConfig
from accel_sim.systems.nn.lowbit.quantizer import GradientQuantizer, InputQuantizer, WeightQuantizer

IMAGE_SIDE = 8                  # load_digits: 8 x 8 pixels, one channel
CNN_CHANNELS = (16, 32)         # two 3x3 conv stages (LeNet-5 has 6 and 16 5x5 filters on 32x32)
CNN_KERNEL, CNN_PADDING = 3, 1
CNN_HIDDEN = 64                 # the fully connected layer before the classifier


class Network:
    """A sequence of layers; softmax cross-entropy on the output."""

    def __init__(self, layers: list, gemms: list[GemmLayer], image: bool):
        self.layers, self.gemms, self.image = layers, gemms, image

    def _input(self, x: np.ndarray) -> np.ndarray:
        return x.reshape(-1, IMAGE_SIDE, IMAGE_SIDE, 1) if self.image else x

    def forward(self, x: np.ndarray, train: bool = True) -> np.ndarray:
        a = self._input(x)
        for layer in self.layers:
            a = layer.forward(a, train)
        return a

    def backward(self, grad: np.ndarray) -> None:
        """Every layer's gradients; the first GEMM does not compute its input's (the data's, read by nothing)."""
        first, *rest = self.layers
        for layer in reversed(rest):
            grad = layer.backward(grad)
        if isinstance(first, GemmLayer):
            first.backward(grad, input_gradient=False)
        else:
            first.backward(grad)

    def parameters(self) -> list[np.ndarray]:
        return [p for layer in self.layers for p in layer.parameters()]

    def gradients(self) -> list[np.ndarray]:
        return [g for layer in self.layers for g in layer.gradients()]

    def add(self, updates: list[np.ndarray]) -> None:
        """Add one optimiser step's updates (in :meth:`parameters` order); each layer applies its method's rule."""
        i = 0
        for layer in self.layers:
            params = layer.parameters()
            if params:   # a layer without parameters has nothing to set
                layer.set_parameters([p + u for p, u in zip(params, updates[i:i + len(params)])])
                i += len(params)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x, train=False).argmax(axis=1)


def layer_quantizers(config: LowBitConfig, index: int, count: int, rng: np.random.Generator) -> Quantizers:
    method = METHODS[config.method]
    first, last = index == 0, index == count - 1
    full_weights = config.full_precision_ends and (first or last)
    full_inputs = first or (config.full_precision_ends and last)
    return Quantizers(WeightQuantizer() if full_weights else method.weights(config, rng),
                      InputQuantizer() if full_inputs else method.inputs(config),
                      GradientQuantizer() if full_weights else method.gradients(config, rng))


def build_network(config: LowBitConfig, features: int, classes: int, hidden: tuple[int, ...],
                  seed: int) -> Network:
    """The ``config.network`` for ``config.method``, initialised from ``seed``."""
    rng = np.random.default_rng(seed)
    activation = METHODS[config.method].activation
    if config.network == "mlp":
        shapes = [(a, b, None) for a, b in zip((features, *hidden), (*hidden, classes))]
    else:
        c1, c2 = CNN_CHANNELS
        flat = c2 * (IMAGE_SIDE // 4) ** 2
        shapes = [(CNN_KERNEL ** 2, c1, CNN_KERNEL), (CNN_KERNEL ** 2 * c1, c2, CNN_KERNEL),
                  (flat, CNN_HIDDEN, None), (CNN_HIDDEN, classes, None)]
    layers: list = []
    gemms: list[GemmLayer] = []
    for i, (fan_in, outputs, kernel) in enumerate(shapes):
        quantizers = layer_quantizers(config, i, len(shapes), rng)
        gemm = GemmLayer(fan_in, outputs, quantizers, rng, kernel=kernel, padding=CNN_PADDING if kernel else 0)
        gemms.append(gemm)
        if i > 0 and kernel is None and shapes[i - 1][2] is not None:
            layers.append(Flatten())
        layers.append(gemm)
        if kernel is not None:
            layers.append(MaxPool2())
        layers.append(BatchNorm(outputs, config.shift_batch_norm))
        if i < len(shapes) - 1:
            layers.append(Activation(activation))
    return Network(layers, gemms, image=config.network == "cnn")
