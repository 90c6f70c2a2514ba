# Warnings for host code (g++/clang++ directly, and through nvcc's host pass)
# and for device code (nvcc/ptxas). One function so every target gets the same.
function(csg_enable_warnings target)
  set(host_warnings -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wold-style-cast
                    -Wcast-align -Woverloaded-virtual -Wpedantic -Wnull-dereference)
  # nvcc-generated host stubs trip -Wpedantic and -Wold-style-cast, so host
  # code inside .cu files gets the same set minus those two.
  set(cuda_host_warnings -Wall,-Wextra,-Wshadow,-Wnon-virtual-dtor,-Wcast-align)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${host_warnings}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${cuda_host_warnings}>
    # Device side: reorder warnings, register spills and accidental doubles.
    $<$<COMPILE_LANGUAGE:CUDA>:-Wreorder -Xptxas=-warn-spills,-warn-double-usage>)
  if(CSG_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endfunction()
