"""Low-bit training on the digits: binary, ternary, k-bit and power-of-two networks in numpy.

One quantizer per method behind one interface (:mod:`.quantizer`: forward quantize,
straight-through backward): BinaryConnect (:mod:`.binary_connect`), BNN (:mod:`.bnn`),
XNOR-Net (:mod:`.xnor_net`), TWN (:mod:`.twn`), TTQ (:mod:`.ttq`), DoReFa (:mod:`.dorefa`),
INQ (:mod:`.inq`), log quantization in base 2 and sqrt 2 (:mod:`.log_quant`). The
quantizers reuse :mod:`accel_sim.foundations.compress.quantization`'s arithmetic. :mod:`.methods` is the
registry and the validated :class:`~.methods.LowBitConfig`, :mod:`.network` builds the MLP and
the LeNet-5-like CNN (:mod:`.layers`, :mod:`.im2col`), :mod:`.train` trains them
(``accel-sim train``, study ``low-bit-training``).
"""
