/*===- capi_check.c - the C API from a C program -------------------------===*\
|*                                                                            *|
|* capi-check <program.mlir> <library.so>: builds and inspects a mesh, a      *|
|* sharding and a sharded tensor type, reports an invalid sharding through    *|
|* the context's diagnostics, parses the program, runs sharding propagation   *|
|* and the host pipeline by name, prints both results and compiles the        *|
|* program for CPU ranks.                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fuser-c/Attributes.h"
#include "fuser-c/Compile.h"
#include "fuser-c/Dialects.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, print, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/* Runs the pass pipeline `pipeline` (a string naming our passes) on `op`. */
static bool runPipeline(MlirContext context, MlirOperation op,
                        const char *pipeline) {
  MlirPassManager passes = mlirPassManagerCreate(context);
  bool done = mlirLogicalResultIsSuccess(mlirParsePassPipeline(
                  mlirPassManagerGetAsOpPassManager(passes),
                  mlirStringRefCreateFromCString(pipeline), print, NULL)) &&
              mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(passes, op));
  mlirPassManagerDestroy(passes);
  return done;
}

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc(size + 1);
  if (fread(text, 1, size, file) != (size_t)size) {
    fclose(file);
    free(text);
    return NULL;
  }
  fclose(file);
  text[size] = 0;
  return text;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: capi-check <program.mlir> <library.so>\n");
    return 2;
  }
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  fuserRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(context);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  MlirStringRef fuserNamespace =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__fuser__());
  MlirStringRef hostirNamespace =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__hostir__());
  printf("dialects: %.*s %.*s\n", (int)fuserNamespace.length,
         fuserNamespace.data, (int)hostirNamespace.length,
         hostirNamespace.data);

  int64_t meshShape[] = {2, 2};
  int64_t devices[] = {3, 2, 1, 0};
  MlirAttribute mesh = fuserMeshAttrGet(context, 2, meshShape, 4, devices);
  printf("mesh: ");
  mlirAttributePrint(mesh, print, NULL);
  printf(" is a mesh %d, rank %ld, axis 1 of size %ld, %ld devices, "
         "the first %ld\n",
         fuserAttributeIsAMesh(mesh), (long)fuserMeshAttrGetRank(mesh),
         (long)fuserMeshAttrGetAxisSize(mesh, 1),
         (long)fuserMeshAttrGetNumDevices(mesh),
         (long)fuserMeshAttrGetDevice(mesh, 0));

  /* dim 0 split by axis 0, dim 1 replicated, partial over axis 1. */
  intptr_t numDimAxes[] = {1, 0};
  int64_t dimAxes[] = {0};
  int64_t partialAxes[] = {1};
  MlirAttribute sharding =
      fuserShardingAttrGet(mesh, 2, numDimAxes, dimAxes, 1, partialAxes,
                           mlirStringRefCreateFromCString("sum"), -1, 0);
  printf("sharding: ");
  mlirAttributePrint(sharding, print, NULL);
  MlirStringRef kind = fuserShardingAttrGetPartialKind(sharding);
  printf(" is a sharding %d, is a mesh %d, rank %ld, dim 0 split by axis "
         "%ld, dim 1 by %ld axes, partial over axis %ld (%.*s), stream dim "
         "%ld\n",
         fuserAttributeIsASharding(sharding), fuserAttributeIsAMesh(sharding),
         (long)fuserShardingAttrGetRank(sharding),
         (long)fuserShardingAttrGetDimAxis(sharding, 0, 0),
         (long)fuserShardingAttrGetNumDimAxes(sharding, 1),
         (long)fuserShardingAttrGetPartialAxis(sharding, 0), (int)kind.length,
         kind.data, (long)fuserShardingAttrGetStreamDim(sharding));
  printf("same mesh: %d\n",
         mlirAttributeEqual(fuserShardingAttrGetMesh(sharding), mesh));

  int64_t shape[] = {8, 16};
  MlirType tensor =
      mlirRankedTensorTypeGet(2, shape, mlirF32TypeGet(context), sharding);
  printf("tensor: ");
  mlirTypePrint(tensor, print, NULL);
  printf(", its sharding the same %d\n",
         mlirAttributeEqual(fuserTypeGetSharding(tensor), sharding));

  /* Axis 2 of a 2-D mesh: a diagnostic and a null attribute. */
  int64_t badAxes[] = {2};
  MlirAttribute bad =
      fuserShardingAttrGet(mesh, 2, numDimAxes, badAxes, 0, NULL,
                           mlirStringRefCreate(NULL, 0), -1, 0);
  printf("invalid sharding is null: %d\n", mlirAttributeIsNull(bad));
  MlirAttribute badKind =
      fuserShardingAttrGet(mesh, 2, numDimAxes, dimAxes, 1, partialAxes,
                           mlirStringRefCreateFromCString("median"), -1, 0);
  printf("unknown partial kind is null: %d\n", mlirAttributeIsNull(badKind));

  char *text = readFile(argv[1]);
  if (!text) {
    fprintf(stderr, "capi-check: cannot read %s\n", argv[1]);
    return 1;
  }
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(module))
    return 1;

  fuserRegisterPasses();
  fuserRegisterPasses();
  /* Propagation on the module, the host pipeline on a copy of it. */
  MlirOperation copy = mlirOperationClone(mlirModuleGetOperation(module));
  if (!runPipeline(context, mlirModuleGetOperation(module),
                   "builtin.module(func.func(fuser-propagate-shardings))") ||
      !runPipeline(context, copy, "builtin.module(fuser-to-hostir-pipeline)"))
    return 1;
  mlirOperationPrint(mlirModuleGetOperation(module), print, NULL);
  printf("\n");
  mlirOperationPrint(copy, print, NULL);
  printf("\n");
  mlirOperationDestroy(copy);

  FuserCompileOptions options = fuserCompileOptionsGetDefault();
  options.chip = mlirStringRefCreateFromCString("ampere");
  printf("bad chip compiles: %d\n",
         mlirLogicalResultIsSuccess(fuserCompileToLibrary(
             module, &options, mlirStringRefCreateFromCString(argv[2]))));
  options.chip = mlirStringRefCreate(NULL, 0);
  if (mlirLogicalResultIsFailure(fuserCompileToLibrary(
          module, &options, mlirStringRefCreateFromCString(argv[2]))))
    return 1;
  printf("compiled %s\n", argv[2]);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}
