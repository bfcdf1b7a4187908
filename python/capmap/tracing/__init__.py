"""What library code a call runs: the files and functions a case depends on, and their code
hashes. The probes trace with it; change selection reads what it recorded."""
