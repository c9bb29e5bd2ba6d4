#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU; its ICU headers clash with the ICU Foundation ships. Nothing
// here uses libxml2's ICU converters, so their declarations are left out.
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
