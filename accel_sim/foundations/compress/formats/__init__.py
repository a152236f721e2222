"""Storage formats: every one has from_dense, to_dense, check, nnz and storage (in bits)."""
from accel_sim.foundations.compress.formats.base import FormatInvariantError, SparseFormat
from accel_sim.foundations.compress.formats.bitmap import Bitmap
from accel_sim.foundations.compress.formats.bsr import BSR
from accel_sim.foundations.compress.formats.compressed import CSC, CSR, CompressedSparse
from accel_sim.foundations.compress.formats.coo import COO
from accel_sim.foundations.compress.formats.csb import CSB
from accel_sim.foundations.compress.formats.dense import DenseFormat
from accel_sim.foundations.compress.formats.eie import EIEInterleavedCSC, EIEPESlice
from accel_sim.foundations.compress.formats.n_of_m import NOfM
from accel_sim.foundations.compress.formats.run_length import RunLengthEncoded, SCNNZeroRun

#: Every concrete format by its ``name`` (the key a config file uses).
FORMATS: dict[str, type[SparseFormat]] = {
    cls.name: cls
    for cls in (
        DenseFormat,
        CompressedSparse,
        CSR,
        CSC,
        EIEInterleavedCSC,
        SCNNZeroRun,
        RunLengthEncoded,
        CSB,
        BSR,
        COO,
        Bitmap,
        NOfM,
    )
}

__all__ = [
    "BSR",
    "COO",
    "CSB",
    "CSC",
    "CSR",
    "FORMATS",
    "Bitmap",
    "CompressedSparse",
    "DenseFormat",
    "EIEInterleavedCSC",
    "EIEPESlice",
    "FormatInvariantError",
    "NOfM",
    "RunLengthEncoded",
    "SCNNZeroRun",
    "SparseFormat",
]
