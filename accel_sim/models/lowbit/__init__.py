"""Binary / ternary / low-bit PE array (family: lowbit)."""
