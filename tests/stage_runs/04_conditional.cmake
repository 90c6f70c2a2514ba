# Stage 04's conditional subcommand at tiny sizes (exit 0: every loop counter
# equal to its N, every GEMM output verified, every SWITCH bucket run exactly
# for its requests; 77: no device, or a driver without the node types).
# Both parts with odd sizes and an unrolled graph shorter than the longest loop.
csg_add_stage_run(conditional_tiny 04_graph_capture_gemm conditional
  --cond-iterations 1,3,20 --cond-size 17 --cond-unroll-max 3 --cond-buckets 8,24,33 --cond-requests 9
  --warmup 1 --repeats 2)
# The WHILE part alone (what a driver older than 12.8 can run), no unrolled graph.
csg_add_stage_run(conditional_while_only 04_graph_capture_gemm conditional
  --cond-iterations 2,7 --cond-size 8 --cond-unroll-max 0 --cond-requests 0 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX conditional
  conditional --cond-iterations 1,4 --cond-size 8 --cond-buckets 4,8 --cond-requests 5 --warmup 0 --repeats 1)
