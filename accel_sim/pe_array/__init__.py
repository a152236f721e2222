"""Generic PE array with a selectable level of sparsity support."""
