# Every third-party piece comes from the system. When one is missing, stop
# with the package that provides it instead of a wall of CMake errors.
find_package(CUDAToolkit REQUIRED)

function(csg_require_package name debian_package)
  find_package(${name} CONFIG QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "${name} was not found. Install it, e.g. on Debian/Ubuntu:\n"
      "    sudo apt-get install ${debian_package}\n"
      "or point CMake at it with -D${name}_DIR=/path/to/its/cmake/config.")
  endif()
  message(STATUS "Found ${name} ${${name}_VERSION}")
endfunction()

csg_require_package(cxxopts libcxxopts-dev)
csg_require_package(nlohmann_json nlohmann-json3-dev)
if(CSG_BUILD_TESTS)
  csg_require_package(GTest "libgtest-dev libgmock-dev")
  if(NOT TARGET GTest::gmock)  # the tests' matchers (HasSubstr, ElementsAre, AllOf)
    message(FATAL_ERROR "GoogleTest was found without GoogleMock. Install it, e.g. on Debian/Ubuntu:\n"
                        "    sudo apt-get install libgmock-dev")
  endif()
endif()
