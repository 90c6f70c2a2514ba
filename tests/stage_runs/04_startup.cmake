# Stage 04's startup subcommand at a tiny size: two bucket counts over 1..9
# batches of 16^3, both layouts, every graph launched once and verified
# (exit 0 means verified); and a budget so small that even the fewest buckets
# exceed it (the conclusion's branch, still exit 0).
csg_add_stage_run(startup_tiny 04_graph_capture_gemm startup
  --startup-buckets 2,9 --startup-max-batches 9 --startup-size 16 --startup-requests 500 --streams 3)
csg_add_stage_run(startup_tiny_budget_pageable 04_graph_capture_gemm startup
  --startup-buckets 1,3 --startup-max-batches 3 --startup-size 33 --startup-budget-ms 1 --startup-rounds 2
  --host-memory pageable --streams 2)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX startup
  startup --startup-buckets 2,4 --startup-max-batches 4 --startup-size 8 --startup-requests 100 --streams 2)
