# `cmake --install`: the program, the Slurm templates, and the documentation:
#   bin/hpcalign
#   share/hpcalign/jobs/        sbatch templates and their helpers (jobs/)
#   share/doc/hpcalign/         README.md, LICENSE, NOTICE, every command's --help text (*.txt)
#   share/man/man1/hpcalign.1   the same --help texts as a man page
include(GNUInstallDirs)
install(TARGETS hpcalign RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hpcalign/jobs USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The help texts come from the built program itself, so they cannot drift from it.
if(NOT CMAKE_CROSSCOMPILING)
  set(HPCALIGN_COMMANDS search allvsall pss msv hmmsearch hmmscan makedb view merge)
  string(REPLACE ";" "," commands "${HPCALIGN_COMMANDS}")  # a shell would split at ';'
  set(help_dir ${PROJECT_BINARY_DIR}/doc)
  set(help_files ${help_dir}/hpcalign.txt)
  foreach(cmd ${HPCALIGN_COMMANDS})
    list(APPEND help_files ${help_dir}/hpcalign-${cmd}.txt)
  endforeach()
  set(man_page ${help_dir}/hpcalign.1)
  add_custom_command(OUTPUT ${help_files} ${man_page}
    COMMAND ${CMAKE_COMMAND} -DHPCALIGN=$<TARGET_FILE:hpcalign> -DOUT=${help_dir} "-DCOMMANDS=${commands}" -P ${PROJECT_SOURCE_DIR}/cmake/write_help.cmake
    DEPENDS hpcalign ${PROJECT_SOURCE_DIR}/cmake/write_help.cmake
    COMMENT "hpcalign: --help texts and man page"
    VERBATIM)
  add_custom_target(hpcalign_docs ALL DEPENDS ${help_files} ${man_page})
  install(FILES ${help_files} DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(FILES ${man_page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
