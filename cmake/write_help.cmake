# Writes OUT/hpcalign.txt (`hpcalign --help`), OUT/hpcalign-CMD.txt (`hpcalign CMD --help`) for
# each of COMMANDS (comma-separated), and the man page OUT/hpcalign.1 holding the same texts
# verbatim (help2man's reflowing mangles the command tables). Fails when the program does.
function(run_help out)
  execute_process(COMMAND ${HPCALIGN} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR text STREQUAL "")
    message(FATAL_ERROR "hpcalign ${ARGN} --help failed (${rc}): ${err}")
  endif()
  file(WRITE ${out} "${text}")
  # roff: backslashes escaped, lines starting with a control character made literal.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(roff ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${HPCALIGN} --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX REPLACE "\n.*" "" version "${version}")  # "hpcalign X.Y.Z"
file(MAKE_DIRECTORY ${OUT})
run_help(${OUT}/hpcalign.txt)
string(CONCAT man ".TH HPCALIGN 1 \"\" \"${version}\" \"User Commands\"\n"
        ".SH NAME\nhpcalign \\- GPU-accelerated protein sequence alignment\n"
        ".SH DESCRIPTION\n${roff}.SH COMMANDS\n")
string(REPLACE "," ";" COMMANDS "${COMMANDS}")
foreach(cmd ${COMMANDS})
  run_help(${OUT}/hpcalign-${cmd}.txt ${cmd})
  string(APPEND man ".SS ${cmd}\n${roff}")
endforeach()
string(APPEND man ".SH SEE ALSO\nThe Slurm templates in share/hpcalign/jobs and the README in share/doc/hpcalign.\n")
file(WRITE ${OUT}/hpcalign.1 "${man}")
