# Run cpt with each option spelled both ways (-DCPT=... -DTRACE=...) and
# fail unless each pair writes the same, non-empty output and exits 0.
function(run_cpt out)
  execute_process(COMMAND ${CPT} ${ARGN} OUTPUT_VARIABLE o
    ERROR_VARIABLE e RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cpt ${ARGN}: exit ${rc}: ${e}")
  endif()
  set(${out} "${o}" PARENT_SCOPE)
endfunction()

function(same)
  cmake_parse_arguments(S "" "" "A;B" ${ARGN})
  run_cpt(a ${S_A})
  run_cpt(b ${S_B})
  if(a STREQUAL "")
    message(FATAL_ERROR "cpt ${S_A}: no output")
  endif()
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "cpt ${S_A} and cpt ${S_B} differ")
  endif()
endfunction()

same(A report --top 5 ${TRACE} B report --top=5 ${TRACE})
same(A report ${TRACE} --k 3 --format json
     B report --k=3 --format=json ${TRACE})
same(A paths -k 3 --full 2 ${TRACE} B paths ${TRACE} -k3 --full=2)
same(A whatif --scale=main=0.5 --cpus=2 ${TRACE}
     B whatif ${TRACE} --scale main=0.5 --cpus 2)
same(A export --format folded --weight cpu ${TRACE}
     B export ${TRACE} --format=folded --weight=cpu)
# and --top changes what is shown: the forms are not both ignored
run_cpt(all report --top 0 ${TRACE})
run_cpt(one report --top 1 ${TRACE})
if(all STREQUAL one)
  message(FATAL_ERROR "cpt report --top 1 shows what --top 0 shows")
endif()
