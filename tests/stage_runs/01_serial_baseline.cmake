# Stage 01 at tiny, odd sizes, with both host memory kinds.
csg_add_stage_run(tiny 01_serial_baseline --batches 5 --m 33 --n 17 --k 65 --warmup 1 --repeats 2)
csg_add_stage_run(tiny_pinned 01_serial_baseline
  --batches 3 --m 64 --n 48 --k 40 --warmup 0 --repeats 1 --host-memory pinned)
csg_add_sanitizer_runs(01_serial_baseline --batches 3 --m 33 --n 17 --k 65 --warmup 0 --repeats 1)
csg_add_stage_run(tiny_timeline 01_serial_baseline
  --batches 4 --m 32 --n 16 --k 48 --warmup 0 --repeats 1 --timeline --timeline-batches 2)
# The faster kernels: the tiled GEMM and cuBLAS (FP32 and TF32) at odd sizes.
csg_add_stage_run(tiny_tiled 01_serial_baseline --kernel tiled --batches 5 --m 33 --n 17 --k 65 --warmup 0 --repeats 1)
csg_add_stage_run(tiny_cublas 01_serial_baseline --kernel cublas --batches 5 --m 33 --n 17 --k 65 --warmup 0 --repeats 1)
csg_add_stage_run(tiny_cublas_tf32 01_serial_baseline --kernel cublas --tf32 --batches 5 --m 1000 --n 3 --k 129
  --warmup 0 --repeats 1)
