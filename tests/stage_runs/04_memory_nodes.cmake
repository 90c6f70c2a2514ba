# Stage 04's memory-nodes subcommand at tiny, odd sizes (exit 0: every run of
# both graphs verified): the pool's slots and the article's per-batch buffers
# for the preallocated graph, pageable host memory, cuBLAS captured between
# the memory nodes, and an odd count of timed runs (the inputs alternate).
csg_add_stage_run(memory_nodes_tiny 04_graph_capture_gemm memory-nodes
  --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2)
csg_add_stage_run(memory_nodes_per_batch_pageable 04_graph_capture_gemm memory-nodes
  --batches 5 --m 16 --n 24 --k 8 --streams 2 --device-buffers per-batch --host-memory pageable --warmup 0 --repeats 1)
csg_add_stage_run(memory_nodes_cublas 04_graph_capture_gemm memory-nodes
  --kernel cublas --batches 6 --m 64 --n 48 --k 40 --streams 2 --warmup 0 --repeats 2)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX memory_nodes memory-nodes
  --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
