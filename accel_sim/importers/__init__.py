"""Importers that turn a user's trained model into a workload file with real weights.

Kept light: ``onnx`` (the optional extra) is imported only when an import runs.
"""
