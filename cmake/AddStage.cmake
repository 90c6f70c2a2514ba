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
  else()  # a stage whose whole lesson is its main.cu
    add_library(${library} INTERFACE)
    target_link_libraries(${library} INTERFACE csg::common)
  endif()

  add_executable(${folder} ${CMAKE_CURRENT_SOURCE_DIR}/main.cu)
  target_link_libraries(${folder} PRIVATE ${library})
  csg_enable_warnings(${folder})
  set_target_properties(${folder} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  set_property(GLOBAL APPEND PROPERTY CSG_STAGE_LIBRARIES ${library})
endfunction()
