# Runs COMMAND (a ;-list) and checks how it ends: exit status EXIT, and MESSAGE (a regular
# expression) in its output exactly once, so that the ranks' copies of one error do not
# interleave or repeat. Used by the adimg-mpi rows of CMakeLists.txt: cmake -P expect_exit.cmake.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(text "${out}${err}")
string(REGEX MATCHALL "${MESSAGE}" found "${text}")
list(LENGTH found count)
if(NOT status STREQUAL "${EXIT}" OR NOT count EQUAL 1)
  message(FATAL_ERROR "expected exit ${EXIT} and '${MESSAGE}' once; got exit ${status} and ${count} matches in:\n${text}")
endif()
