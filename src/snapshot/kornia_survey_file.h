#pragma once
// Kornia's own survey data file (docs/source/_data/export_support.json, the
// layout `capmap merge --kornia-json` writes) read as a snapshot, so `capmap
// diff` can compare Kornia's published page with a capmap run.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap {

// The header's `layout` of a snapshot read from that file; real snapshots have none.
inline constexpr const char* kKorniaSurveyLayout = "kornia export_support.json";

// True for a document in that layout: no schema_version, a `kornia` version
// field and a `cases` list.
bool is_kornia_survey(const nlohmann::json& document);

// The file as a snapshot: each case's onnx, export and compile status mapped
// to a page status (its `*_detail` becomes the cause), the versions in the
// header. Throws UserError ("WHERE: problem") for a case without a name, a
// name given twice or a status capmap does not know.
nlohmann::json snapshot_from_kornia_survey(const nlohmann::json& survey, const std::string& where);

}  // namespace capmap
