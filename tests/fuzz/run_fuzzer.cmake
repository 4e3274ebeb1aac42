# One fuzz target for a bounded time (CTest, label fuzz): seeds written by the target itself, then
# libFuzzer over the build's corpus, the seeds and the kept regressions. Fails on any finding.
file(REMOVE_RECURSE ${SEEDS})
execute_process(COMMAND ${CMAKE_COMMAND} -E env PERFCAST_FUZZ_WRITE_SEEDS=${SEEDS} ${FUZZER} RESULT_VARIABLE seeded)
if(NOT seeded EQUAL 0)
  message(FATAL_ERROR "fuzz_${TARGET}: writing the seeds failed (${seeded})")
endif()
file(MAKE_DIRECTORY ${CORPUS})
set(dirs ${CORPUS} ${SEEDS})
if(IS_DIRECTORY ${SOURCE_DIR}/tests/fuzz/regressions/${TARGET})
  list(APPEND dirs ${SOURCE_DIR}/tests/fuzz/regressions/${TARGET})
endif()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=60 -rss_limit_mb=4096 -max_len=65536
                        -print_final_stats=1 -artifact_prefix=${ARTIFACTS} ${dirs}
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "fuzz_${TARGET}: a finding (exit ${result}); the input is in ${ARTIFACTS}")
endif()
