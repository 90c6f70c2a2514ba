# Stage 03 at tiny, odd sizes: a batch count that is not a multiple of the
# pool, a sweep up to more streams than batches, both device layouts, and
# pageable memory.
csg_add_stage_run(tiny 03_stream_pool_gemm
  --batches 37 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 1,8,32 --warmup 1 --repeats 2 --count-sweep 1,4,64 --count-batches 30 --count-size 16)
csg_add_stage_run(tiny_per_batch 03_stream_pool_gemm
  --batches 11 --m 64 --n 48 --k 40 --streams 4 --streams-sweep off --device-buffers per-batch --warmup 0 --repeats 1 --count-sweep 1,4,64 --count-batches 30 --count-size 16)
csg_add_stage_run(tiny_pageable 03_stream_pool_gemm
  --batches 9 --m 40 --n 40 --k 40 --streams 2 --streams-sweep 2,3 --host-memory pageable --warmup 0 --repeats 1 --count-sweep off)
csg_add_sanitizer_runs(03_stream_pool_gemm
  --batches 7 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2 --warmup 0 --repeats 1 --count-sweep 1,3 --count-batches 5 --count-size 8
  --priorities off --contention off)
# The priority and contention experiments' kernels (spin, flood, short) under the sanitizers,
# with 20 short kernels per mode and round (the same code, a tenth of the work), one at a time.
csg_add_sanitizer_runs(03_stream_pool_gemm WHOLE_GPU SUFFIX extras
  --batches 2 --m 8 --n 8 --k 8 --streams 2 --streams-sweep off --count-sweep off --warmup 0 --repeats 1
  --priority-samples 20)
# --timeline end to end: one recorded pool run (a row per stream), verified,
# then the pool re-timed after recording. Exit 0 also when CUPTI is unavailable
# (the output says why); tests/gpu/test_timeline_03_04.cu checks what was recorded.
csg_add_stage_run(tiny_timeline 03_stream_pool_gemm
  --batches 10 --m 32 --n 16 --k 48 --streams 3 --streams-sweep off --warmup 0 --repeats 1 --timeline
  --timeline-batches 6)
# The faster kernels through every variant (pool, engine streams, sweep, sums).
csg_add_stage_run(tiny_tiled 03_stream_pool_gemm
  --kernel tiled --batches 13 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2,5 --warmup 0 --repeats 1 --count-sweep off)
csg_add_stage_run(tiny_cublas 03_stream_pool_gemm
  --kernel cublas --batches 13 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2,5 --warmup 0 --repeats 1 --count-sweep off)
csg_add_stage_run(tiny_cublas_tf32 03_stream_pool_gemm
  --kernel cublas --tf32 --batches 9 --m 64 --n 48 --k 40 --streams 4 --streams-sweep off --device-buffers per-batch
  --warmup 0 --repeats 1 --count-sweep off)
csg_add_sanitizer_runs(03_stream_pool_gemm SUFFIX tiled
  --kernel tiled --batches 5 --m 33 --n 17 --k 65 --streams 2 --streams-sweep off --warmup 0 --repeats 1 --count-sweep off
  --priorities off --contention off)
