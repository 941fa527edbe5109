"""What keeps a hostile repository in: the lint root and its confined reads, bounded reads of
untrusted files, the shapes of credentials and how every output masks them. Imports only vlint.core."""
