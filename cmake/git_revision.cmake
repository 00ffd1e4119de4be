# Writes OUT (a header defining HPCALIGN_GIT_REVISION) from the git checkout at SRC: the short
# commit, "-dirty" when tracked files differ from it. Run at every build (not only at
# configure), and rewrites OUT only when the text changes so that nothing recompiles needlessly.
# Without git or outside a checkout (a release tarball) the revision is REVISION if given, else
# "unknown".
set(revision "${REVISION}")
if(NOT revision)
  set(revision unknown)
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C "${SRC}" rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND commit)
      set(revision ${commit})
      execute_process(COMMAND ${GIT_EXECUTABLE} -C "${SRC}" diff-index --quiet HEAD --
                      RESULT_VARIABLE dirty ERROR_QUIET)
      if(NOT dirty EQUAL 0)
        string(APPEND revision -dirty)
      endif()
    endif()
  endif()
endif()
set(text "#define HPCALIGN_GIT_REVISION \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
