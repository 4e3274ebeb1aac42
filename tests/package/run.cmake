# CTest cmake_package_find_package: `cmake --install` the build into a scratch prefix, build
# tests/package against it with find_package(perfcast), run it, and check it read the installed data.
# -DBUILD_DIR=<perfcast build> -DSOURCE_DIR=<tests/package> -DWORK=<scratch folder> -DCOMPILER=<c++>
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix OUTPUT_QUIET RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
                        -DCMAKE_CXX_COMPILER=${COMPILER} -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "configuring a project with find_package(perfcast) failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "building against perfcast::engine failed:\n${out}")
endif()
# The consumer's defaults (INSTALL_INTERFACE definitions) must name the prefix's share/perfcast.
execute_process(COMMAND ${WORK}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(STATUS "${out}")
if(rc OR NOT out MATCHES "step [0-9.]+ s from ${WORK}/prefix/share/perfcast/hardware_db")
  message(FATAL_ERROR "the installed package did not predict from its installed data: ${out}")
endif()
