# Stage 04 at tiny, odd sizes: a batch count that is not a multiple of the
# pool, both device-buffer layouts, pageable memory, and fewer batches than streams.
csg_add_stage_run(tiny 04_graph_capture_gemm
  --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2 --tiny-count 20 --tiny-size 8 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1)
csg_add_stage_run(tiny_per_batch_pageable 04_graph_capture_gemm
  --batches 5 --m 16 --n 24 --k 8 --streams 2 --device-buffers per-batch --host-memory pageable
  --warmup 0 --repeats 1 --tiny-count 10 --tiny-size 4 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1)
csg_add_stage_run(tiny_more_streams_than_batches 04_graph_capture_gemm
  --batches 3 --m 8 --n 8 --k 8 --streams 8 --warmup 0 --repeats 1 --tiny-count 5 --tiny-size 4 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1)
# --timeline end to end: one recorded replay of a second exec of the graph,
# nodes labelled by pool stream and batch, verified, then the timed exec
# re-timed after recording. tests/gpu/test_timeline_03_04.cu checks what was recorded.
csg_add_stage_run(tiny_timeline 04_graph_capture_gemm
  --batches 10 --m 32 --n 16 --k 48 --streams 3 --warmup 0 --repeats 1 --tiny-count 5 --tiny-size 4 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1 --timeline
  --timeline-batches 6)
# API_ERRORS_EXPECTED: the run shows an exec update that CUDA refuses (a new batch count).
csg_add_sanitizer_runs(04_graph_capture_gemm API_ERRORS_EXPECTED
  --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1 --tiny-count 8 --tiny-size 16 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1)
# The faster kernels captured into the graph: tiled, and cuBLAS (handles prepared before capture).
csg_add_stage_run(tiny_tiled 04_graph_capture_gemm
  --kernel tiled --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1 --tiny-count 5 --tiny-size 4 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1)
csg_add_stage_run(tiny_cublas 04_graph_capture_gemm
  --kernel cublas --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1 --tiny-count 5 --tiny-size 4 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1)
csg_add_stage_run(tiny_cublas_tf32 04_graph_capture_gemm
  --kernel cublas --tf32 --batches 6 --m 64 --n 48 --k 40 --streams 2 --warmup 0 --repeats 1 --tiny-count 5
  --tiny-size 4 --launch-chains 3,30 --launch-repeats 5
  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1 --timeline)
csg_add_stage_run(tiny_regime_map 04_graph_capture_gemm --regime-map --map-sizes 16,32 --map-batches 3,20 --warmup 0 --repeats 1)
