"""Bit-serial and precision-exploiting accelerators on DaDianNao-style tiles (family: bitserial)."""
