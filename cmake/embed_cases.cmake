# Writes a C++ source that holds the text of every case file, so that the built-in cases travel
# with the library and the files under cases/ stay their single source.
# Inputs: CASE_DIR (the folder of *.cfg files), OUTPUT.
file(GLOB CASE_FILES "${CASE_DIR}/*.cfg")
set(body "#include <map>\n#include <string>\n\nnamespace adimg {\n\nconst std::map<std::string, std::string>& builtin_case_texts() {\n    static const std::map<std::string, std::string> texts = {\n")
foreach(file IN LISTS CASE_FILES)
  get_filename_component(name "${file}" NAME_WE)
  file(READ "${file}" text)
  string(APPEND body "        {\"${name}\", R\"adimg_case(${text})adimg_case\"},\n")
endforeach()
string(APPEND body "    };\n    return texts;\n}\n\n}  // namespace adimg\n")
file(WRITE "${OUTPUT}.tmp" "${body}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
