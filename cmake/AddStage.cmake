# On a machine with many cores, the stages' C++ compiles on at most all but
# four of them at once (a Ninja job pool). Ninja starts first the work on the
# longest chains of its graph, the stages' objects (object, library,
# executable); without the pool the test suites' batches (object,
# executable), among the build's longest steps, waited for the stages' forty
# objects. Two cores: no pool.
cmake_host_system_information(RESULT csg_cores QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR csg_stage_jobs "${csg_cores} - 4")
if(CMAKE_GENERATOR MATCHES "Ninja" AND csg_stage_jobs GREATER 3)
  set_property(GLOBAL APPEND PROPERTY JOB_POOLS csg_stage_compile=${csg_stage_jobs})
  set(CSG_STAGE_JOB_POOL csg_stage_compile)
endif()

# csg_add_stage(): the stage folder's main.cu becomes an executable named after
# the folder (e.g. 01_serial_baseline); every other .cu and .cpp in the folder
# and below it (lab/ and its subcommand folders) goes into a library,
# csg_stageNN, that the executable and the tests link.
# Tests include a stage's headers by folder: #include "03_stream_pool_gemm/report.hpp".
function(csg_add_stage)
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  string(SUBSTRING ${folder} 0 2 number)
  set(library csg_stage${number})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/*.cu)
  list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/main.cu)
  if(sources)
    add_library(${library} STATIC ${sources})
    target_include_directories(${library} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${library} PUBLIC csg::common)
    csg_enable_warnings(${library})
    # Its C++ declares the runs, issues their CUDA calls and writes their
    # reports. -O1 compiles it in two thirds of -O3's time (nlohmann/json's
    # templates are most of it), and the CUDA calls it times cost
    # microseconds either way. The .cu files keep nvcc's -O3.
    target_compile_options(${library} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-O1>)
    if(CSG_STAGE_JOB_POOL)
      set_target_properties(${library} PROPERTIES JOB_POOL_COMPILE ${CSG_STAGE_JOB_POOL})
    endif()
    csg_build_in_groups(${library} ${sources})
  else()  # a stage whose whole lesson is its main.cu
    add_library(${library} INTERFACE)
    target_link_libraries(${library} INTERFACE csg::common)
  endif()

  add_executable(${folder} ${CMAKE_CURRENT_SOURCE_DIR}/main.cu)
  target_link_libraries(${folder} PRIVATE ${library})
  csg_lesson_architecture(${folder})
  csg_enable_warnings(${folder})
  set_target_properties(${folder} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  set_property(GLOBAL APPEND PROPERTY CSG_STAGE_LIBRARIES ${library})
endfunction()

# csg_build_in_groups(<library> <sources>...): with CSG_UNITY_BUILD (the
# default), the .cpp files of each folder compile as one translation unit
# (a subcommand's folder is one, the stage's top another, lab/'s own files a
# third): the headers, nlohmann/json's above all, and the templates they
# instantiate are compiled once per folder instead of once per file, and
# experiment/lab.hpp, the frame every folder uses, is precompiled once for
# common and once for the four stages. A folder's files may share names in
# their anonymous namespaces with another folder's, never with their own
# folder's. The .cu files stay one translation unit each.
function(csg_build_in_groups library)
  if(NOT CSG_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${library} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  foreach(source IN LISTS ARGN)
    if(source MATCHES "\\.cpp$")
      file(RELATIVE_PATH relative ${CMAKE_CURRENT_SOURCE_DIR} ${source})
      get_filename_component(folder "${relative}" DIRECTORY)
      if(folder STREQUAL "")
        set(folder top)
      endif()
      set_source_files_properties(${source} PROPERTIES UNITY_GROUP "${folder}")
    endif()
  endforeach()
  # The stages compile it with the same flags: the first stage's is built
  # once and the others use it (common's own defines differ).
  get_property(owner GLOBAL PROPERTY CSG_STAGE_PCH_OWNER)
  if(owner AND NOT library STREQUAL "csg_common")
    target_precompile_headers(${library} REUSE_FROM ${owner})
  else()
    target_precompile_headers(${library} PRIVATE
                              "$<$<COMPILE_LANGUAGE:CXX>:${PROJECT_SOURCE_DIR}/common/experiment/lab.hpp>")
    if(NOT library STREQUAL "csg_common")
      set_property(GLOBAL PROPERTY CSG_STAGE_PCH_OWNER ${library})
    endif()
  endif()
endfunction()

# csg_lesson_architecture(<executable>): a lesson's main.cu defines no kernel
# (it launches common's, whose machine code its library carries for every
# architecture), so compiling its empty device side once per architecture
# only costs time: seven device passes of nothing on a build without a GPU.
# It compiles as PTX of the oldest architecture of the list instead (a newer
# GPU JIT-compiles PTX), so a kernel a reader adds to main.cu still runs on
# every GPU the build is for. A list with any other kind of entry ("native",
# "all", "90a") is left as it is.
function(csg_lesson_architecture executable)
  set(oldest "")
  foreach(architecture IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(NOT architecture MATCHES "^([0-9]+)(-real|-virtual)?$")
      return()
    endif()
    if(oldest STREQUAL "" OR CMAKE_MATCH_1 LESS oldest)
      set(oldest ${CMAKE_MATCH_1})
    endif()
  endforeach()
  if(NOT oldest STREQUAL "")
    set_target_properties(${executable} PROPERTIES CUDA_ARCHITECTURES "${oldest}-virtual")
  endif()
endfunction()
