# csg_add_stage(<folder>) builds <folder>/main.cu into an executable named after
# the folder (e.g. 01_serial_baseline), linked with the common library.
function(csg_add_stage folder)
  add_executable(${folder} ${CMAKE_CURRENT_SOURCE_DIR}/main.cu)
  target_link_libraries(${folder} PRIVATE csg::common)
  csg_enable_warnings(${folder})
  set_target_properties(${folder} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
endfunction()
