"""What the tree's Python tooling shares to drive real servers: a RESP
connection (resp), a server process of its own (server) and the ports it may
listen on (ports). The benches (bench/bench.py, bench/guard.py,
functions/bench.py), the differential check and the observability check take
them from here; a script outside this folder puts scripts/ on sys.path."""
