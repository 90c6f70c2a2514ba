# Stage 03's lesson at tiny, odd sizes: a batch count that is not a multiple
# of the pool, a sweep up to more streams than batches, and one batch.
csg_add_stage_run(tiny 03_stream_pool_gemm
  --batches 37 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 1,8,32 --warmup 1 --repeats 2)
csg_add_stage_run(tiny_one_batch 03_stream_pool_gemm
  --batches 1 --m 40 --n 24 --k 8 --streams 2 --streams-sweep off --warmup 0 --repeats 1)
# Each subcommand at tiny sizes. kernels: every kernel through every variant
# (pool, engine streams, sweep, sums), both device layouts.
csg_add_stage_run(kernels_naive 03_stream_pool_gemm kernels
  --kernel naive --batches 37 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 1,8,32 --warmup 1 --repeats 2)
csg_add_stage_run(kernels_tiled_per_batch 03_stream_pool_gemm kernels
  --kernel tiled --batches 11 --m 64 --n 48 --k 40 --streams 4 --device-buffers per-batch --warmup 0 --repeats 1)
csg_add_stage_run(kernels_cublas 03_stream_pool_gemm kernels
  --batches 13 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2,5 --warmup 0 --repeats 1)
csg_add_stage_run(kernels_cublas_tf32 03_stream_pool_gemm kernels
  --tf32 --batches 9 --m 64 --n 48 --k 40 --streams 4 --device-buffers per-batch --warmup 0 --repeats 1)
# order: both issue orders on pinned memory, and on pageable memory.
csg_add_stage_run(order_tiny 03_stream_pool_gemm order
  --batches 13 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_stage_run(order_pageable 03_stream_pool_gemm order
  --batches 9 --m 40 --n 40 --k 40 --streams 2 --host-memory pageable --warmup 0 --repeats 1)
csg_add_stage_run(engine_streams_tiny 03_stream_pool_gemm engine-streams
  --batches 13 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1)
csg_add_stage_run(count_sweep_tiny 03_stream_pool_gemm count-sweep
  --count-sweep 1,4,64 --count-batches 30 --count-size 16 --warmup 0 --repeats 1)
csg_add_stage_run(priorities_tiny 03_stream_pool_gemm WHOLE_GPU priorities
  --priority-samples 20 --warmup 0 --repeats 1)
csg_add_stage_run(contention_tiny 03_stream_pool_gemm WHOLE_GPU contention --warmup 0 --repeats 2)
# One recorded pool run (a row per stream), verified, then the pool re-timed
# after recording. Exit 0 also when CUPTI is unavailable (the output says
# why); tests/gpu/test_timeline_03_04.cpp checks what was recorded.
csg_add_stage_run(timeline_tiny 03_stream_pool_gemm timeline
  --batches 10 --m 32 --n 16 --k 48 --streams 3 --warmup 0 --repeats 1 --timeline-batches 6)

# Under the sanitizers, at sizes that prove correctness in seconds: the
# lesson's own loops and launches; the laboratory's pool, engine streams and
# bound runs through Gemm (the naive and the tiled kernel); the priority and
# contention experiments' kernels (spin, flood, short), with 20 short kernels
# per mode (the same code, a tenth of the work). These run beside the other
# tests: three racecheck runs of the priorities' flood at once, three times
# over, and three of contention at once, all ended clean on the H200
# (2026-12-02), so the floods need no lock when they only prove correctness.
csg_add_sanitizer_runs(03_stream_pool_gemm
  --batches 7 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(03_stream_pool_gemm SUFFIX kernels
  kernels --kernel naive --batches 7 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(03_stream_pool_gemm SUFFIX tiled
  kernels --kernel tiled --batches 5 --m 33 --n 17 --k 65 --streams 2 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(03_stream_pool_gemm SUFFIX priorities
  priorities --priority-samples 20 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(03_stream_pool_gemm SUFFIX contention contention --warmup 0 --repeats 1)
