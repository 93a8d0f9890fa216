//===- Dialects.cpp - the dialects and passes from C ----------------------===//

#include "fuser-c/Dialects.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/HostIR/IR/HostIR.h"
#include "fuser/InitAllDialects.h"
#include "fuser/InitAllPasses.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Fuser, fuser, mlir::fuser::FuserDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(HostIR, hostir,
                                      mlir::hostir::HostIRDialect)

void fuserRegisterAllDialects(MlirDialectRegistry registry) {
  fuser::registerAllDialects(*unwrap(registry));
}

void fuserRegisterPasses(void) { fuser::registerFuserPasses(); }
