# cmake -DCC=COMPILER -DNAME=NAME -DFLAGS=FLAGS -DSRC=TREE -DBIN=FOLDER -DPYTHON=PY -P build_with.cmake
# Configures TREE in FOLDER with COMPILER and FLAGS (tests included, -Werror) and builds all of
# it; fails, printing the compiler's diagnostics, when either step fails. FOLDER is kept, so a
# second run builds only what changed. Man pages are left out (they run the built CLI, which
# proves nothing about the compiler); the tests' Python is the first build's.
if(NOT CC OR NOT EXISTS "${CC}")
  message(FATAL_ERROR "${NAME} not found: scripts/install-deps.sh installs it")
endif()

# Fails with the end of LOG (the compiler's diagnostics: the build stops at the first
# failure) and keeps all of it in FOLDER/check.log.
function(fail what log)
  file(WRITE ${BIN}/check.log "${log}")
  string(LENGTH "${log}" n)
  set(from 0)
  if(n GREATER 8000)
    math(EXPR from "${n} - 8000")
  endif()
  string(SUBSTRING "${log}" ${from} -1 tail)
  message(NOTICE "${tail}")
  message(FATAL_ERROR "${what} with ${NAME} failed (above: the end of ${BIN}/check.log)")
endfunction()

execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_C_COMPILER=${CC}
          -DCMAKE_BUILD_TYPE=CompilerCheck "-DCMAKE_C_FLAGS_COMPILERCHECK=${FLAGS}"
          -DOPSCOPE_WERROR=ON -DBUILD_TESTING=ON -DOPSCOPE_COMPILER_CHECK=OFF
          -DOPSCOPE_HELP2MAN=OPSCOPE_HELP2MAN-NOTFOUND -DOPSCOPE_PYTHON3=${PYTHON}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  fail("configuring" "${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} --parallel 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  fail("building" "${out}")
endif()
message(STATUS "the tree builds with ${CC} at -Werror (${BIN})")
