/*===- fuser-c/Dialects.h - the dialects and passes from C --------*- C -*-===*\
|*                                                                            *|
|* Dialect handles in upstream's style (mlirGetDialectHandle__fuser__,        *|
|* __hostir__), the registration of everything our pipelines use, and of our  *|
|* passes and pipelines for mlirParsePassPipeline.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_DIALECTS_H
#define FUSER_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Fuser, fuser);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(HostIR, hostir);

/// Registers the fuser and hostir dialects and the upstream dialects,
/// interfaces and translations the pipelines need (the same as fuser-opt).
MLIR_CAPI_EXPORTED void fuserRegisterAllDialects(MlirDialectRegistry registry);

/// Registers our passes and pipelines (fuser-to-hostir-pipeline, ...), so
/// that pass pipeline strings can name them. Registering twice is harmless.
MLIR_CAPI_EXPORTED void fuserRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif // FUSER_C_DIALECTS_H
