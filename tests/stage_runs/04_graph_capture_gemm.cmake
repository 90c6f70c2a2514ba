# Stage 04's lesson at tiny, odd sizes: a batch count that is not a multiple of the pool, and fewer batches than streams.
csg_add_stage_run(tiny 04_graph_capture_gemm --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2)
csg_add_stage_run(tiny_more_streams_than_batches 04_graph_capture_gemm
  --batches 3 --m 8 --n 8 --k 8 --streams 8 --warmup 0 --repeats 1)
# Each subcommand at tiny sizes. The costs with both device-buffer layouts and
# pageable memory, and with the faster kernels captured into the graph: tiled,
# and cuBLAS (handles prepared before capture), FP32 and TF32.
csg_add_stage_run(costs_tiny 04_graph_capture_gemm costs
  --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2)
csg_add_stage_run(costs_per_batch_pageable 04_graph_capture_gemm costs
  --batches 5 --m 16 --n 24 --k 8 --streams 2 --device-buffers per-batch --host-memory pageable --warmup 0 --repeats 1)
csg_add_stage_run(costs_tiled 04_graph_capture_gemm costs
  --kernel tiled --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_stage_run(costs_cublas 04_graph_capture_gemm costs
  --kernel cublas --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_stage_run(costs_cublas_tf32 04_graph_capture_gemm costs
  --kernel cublas --tf32 --batches 6 --m 64 --n 48 --k 40 --streams 2 --warmup 0 --repeats 1)
# The node-level switch with the naive kernel, and its "naive kernel only" note with cuBLAS and pageable memory.
csg_add_stage_run(node_updates_tiny 04_graph_capture_gemm node-updates
  --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 2)
csg_add_stage_run(node_updates_cublas_pageable 04_graph_capture_gemm node-updates
  --kernel cublas --batches 5 --m 16 --n 24 --k 8 --streams 2 --host-memory pageable --warmup 0 --repeats 1)
csg_add_stage_run(changing_shapes_tiny 04_graph_capture_gemm changing-shapes
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1 --streams 3)
csg_add_stage_run(tiny_work_tiny 04_graph_capture_gemm tiny-work
  --tiny-count 20 --tiny-size 8 --streams 3 --warmup 1 --repeats 2)
csg_add_stage_run(launch_chains_tiny 04_graph_capture_gemm launch-chains
  --launch-chains 3,30 --launch-repeats 5 --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_stage_run(regime_map_tiny 04_graph_capture_gemm regime-map
  --map-sizes 16,32 --map-batches 3,20 --warmup 0 --repeats 1)
csg_add_stage_run(graph_tiny 04_graph_capture_gemm graph --batches 7 --m 33 --n 17 --k 65 --streams 3)
# skip-join exits 1 by design: the run passes when it prints the refusal it
# exists to show (its exit code then does not count; 77, no device, still skips).
add_test(NAME stage.04_graph_capture_gemm.skip_join_tiny
         COMMAND 04_graph_capture_gemm skip-join --batches 7 --m 33 --n 17 --k 65 --streams 3)
set_tests_properties(stage.04_graph_capture_gemm.skip_join_tiny PROPERTIES
  LABELS gpu SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "cudaStreamEndCapture returned cudaErrorStreamCaptureUnjoined")
# One recorded replay of a second exec of the graph, nodes labelled by pool
# stream and batch, verified, then the timed exec re-timed after recording.
# Exit 0 also when CUPTI is unavailable (the output says why);
# tests/gpu/test_timeline_03_04.cpp checks what was recorded.
csg_add_stage_run(timeline_tiny 04_graph_capture_gemm timeline
  --batches 10 --m 32 --n 16 --k 48 --streams 3 --warmup 0 --repeats 1 --timeline-batches 6)
# Under the sanitizers, at sizes that prove correctness in seconds: the
# lesson, and each subcommand that issues copies and kernels of its own.
# API_ERRORS_EXPECTED: node-updates and changing-shapes show exec updates
# that CUDA refuses (a new batch count).
csg_add_sanitizer_runs(04_graph_capture_gemm --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX costs
  costs --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm API_ERRORS_EXPECTED SUFFIX node_updates
  node-updates --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm API_ERRORS_EXPECTED SUFFIX changing_shapes
  changing-shapes --shape-requests 3 --shape-max-batches 4 --shape-size 8 --shape-rounds 1 --streams 2)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX tiny_work
  tiny-work --tiny-count 8 --tiny-size 16 --streams 3 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX launch_chains
  launch-chains --launch-chains 3,30 --launch-repeats 5 --batches 3 --m 16 --n 16 --k 16 --streams 2
  --warmup 0 --repeats 1)
csg_add_sanitizer_runs(04_graph_capture_gemm SUFFIX regime_map
  regime-map --map-sizes 16 --map-batches 3 --streams 2 --warmup 0 --repeats 1)
