# Stage 04's pdl subcommand end to end at tiny sizes: both chains, four ways
# each, every output checked (exit 0 means the GEMM chain verified batch by
# batch, the ping/pong counters right, and the captured PDL chain's edges
# programmatic). Below compute capability 9.0 the run exits 77 and ctest
# reports it as skipped. Sizes not multiples of 32 cover the grids' edges.
csg_add_stage_run(pdl_tiny 04_graph_capture_gemm pdl
  --batches 6 --m 33 --n 17 --k 65 --pdl-pairs 5 --warmup 1 --repeats 2)
csg_add_stage_run(pdl_one_batch 04_graph_capture_gemm pdl
  --batches 1 --m 32 --n 32 --k 32 --pdl-pairs 1 --warmup 0 --repeats 1)
# Under the sanitizers: the programmatic launches and waits (synccheck,
# racecheck), every element written before it is read (initcheck).
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX pdl
  pdl --batches 3 --m 33 --n 17 --k 65 --pdl-pairs 2 --warmup 0 --repeats 1)
