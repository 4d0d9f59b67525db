# Turn a file into a C array: cmake -DIN=FILE -DOUT=FILE.c -DNAME=ident
# -P embed.cmake writes "const char ident[] = { bytes..., 0 };" so the HTML
# report's stylesheet and scripts are real files in the tree and still one
# self-contained page at run time.  No tool beyond CMake itself.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){12})" "\\1\n\t" bytes "${bytes}")
get_filename_component(src ${IN} NAME)
file(WRITE ${OUT} "/* Generated from ${src} by embed.cmake: do not edit. */\n"
  "#include \"cp_html_assets.h\"\n\n"
  "const char ${NAME}[] = {\n\t${bytes}0x00\n};\n")
