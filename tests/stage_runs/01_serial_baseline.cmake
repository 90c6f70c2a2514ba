# Stage 01's lesson at tiny, odd sizes, with both host memory kinds.
csg_add_stage_run(tiny 01_serial_baseline --batches 5 --m 33 --n 17 --k 65 --warmup 1 --repeats 2)
csg_add_stage_run(tiny_pinned 01_serial_baseline
  --batches 3 --m 64 --n 48 --k 40 --warmup 0 --repeats 1 --host-memory pinned)
# The laboratory: the faster kernels (the tiled GEMM, cuBLAS FP32 and TF32) at odd sizes, and the timeline.
csg_add_stage_run(kernels_tiled 01_serial_baseline kernels --kernel tiled --batches 5 --m 33 --n 17 --k 65
  --warmup 0 --repeats 1)
csg_add_stage_run(kernels_cublas 01_serial_baseline kernels --kernel cublas --batches 5 --m 33 --n 17 --k 65
  --warmup 0 --repeats 1 --host-memory pinned)
csg_add_stage_run(kernels_cublas_tf32 01_serial_baseline kernels --kernel cublas --tf32 --batches 5 --m 1000 --n 3
  --k 129 --warmup 0 --repeats 1)
# One recorded serial run, verified, re-timed after the recording. Exit 0 also
# when CUPTI is unavailable (the output says why); tests/gpu/test_timeline_01.cu
# checks what was recorded.
csg_add_stage_run(timeline_tiny 01_serial_baseline timeline
  --batches 4 --m 32 --n 16 --k 48 --warmup 0 --repeats 1 --timeline-batches 2)
# Under the sanitizers: the lesson's own loop and launch, and the laboratory's through Gemm.
csg_add_sanitizer_runs(01_serial_baseline --batches 3 --m 33 --n 17 --k 65 --warmup 0 --repeats 1)
csg_add_sanitizer_runs(01_serial_baseline SUFFIX kernels
  kernels --kernel tiled --batches 3 --m 33 --n 17 --k 65 --warmup 0 --repeats 1)
