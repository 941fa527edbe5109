"""The GPU and accelerator catalogs: memory, compute capability, names and labels, device counts of
TPUs and Gaudi; bundled data, read lazily. Imports only vlint.core."""
