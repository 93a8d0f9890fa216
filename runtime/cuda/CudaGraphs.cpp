//===- CudaGraphs.cpp - executions captured as CUDA graphs and replayed --===//
//
// A stream capture of the current stream (cudaStreamCaptureModeThreadLocal,
// so that other threads, NCCL's among them, keep working); pool streams
// join it through the events programs already use to fork and join them.
// What cannot be replayed is refused by the backend with the call's name
// before CUDA sees it. Device buffers allocated during the capture are
// obtained beside it and belong to the graph, which therefore holds no
// allocation nodes and replays on stable addresses (CudaMemory.cpp).
//
// IPC semaphores count: the n-th wait of a pair completes after its n-th
// signal. A capture bakes the counts it issued into its stream memory
// operations, so each replay first sets them to the counts that follow the
// ones issued so far (cuGraphExecBatchMemOpNodeSetParams), and the host's
// counts advance as if the captured execution had run again.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"

#include <algorithm>
#include <map>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

void CudaBackend::forgetLastSignals() {
  for (auto &[key, share] : ipcShares)
    for (cudaEvent_t &event : share->handles.lastSignal)
      if (event) {
        returnEvent(event);
        event = nullptr;
      }
}

FuserStatus CudaBackend::beginCapture() {
  const char *op = "graph_begin_capture";
  if (capture)
    return fail(std::string(op) + ": a capture is already under way "
                                  "(fuser_graph_end_capture ends it)");
  // The work issued before completes first: nothing inside the capture
  // waits for events recorded outside it.
  if (!streamsFinish()) {
    abortCommunicators();
    return fail(std::string(op) +
                ": the work issued before did not complete within " +
                describeTimeout());
  }
  forgetLastSignals();
  auto started = std::make_unique<Capture>();
  started->stream = getStream();
  for (auto &[key, share] : ipcShares)
    started->ipcCounts.push_back(
        {share.get(), share->handles.signalled, share->handles.awaited});
  if (checkCuda(cudaStreamBeginCapture(started->stream,
                                       cudaStreamCaptureModeThreadLocal),
                op, "cudaStreamBeginCapture"))
    return FUSER_FAILED;
  capture = std::move(started);
  return FUSER_OK;
}

void CudaBackend::takeCapturedCounters(Capture &ended, CudaGraph &graph) {
  for (Capture::Counts &before : ended.ipcCounts) {
    FuserIpcHandles &handles = before.share->handles;
    size_t counters = graph.counters.size();
    for (size_t peer = 0; peer < handles.members.size(); ++peer) {
      // A signal writes this rank's counter in the peer's array; a wait
      // reads the peer's counter in this rank's.
      if (uint32_t advance = handles.signalled[peer] - before.signalled[peer])
        graph.counters.push_back(
            {&handles.signalled[peer],
             reinterpret_cast<CUdeviceptr>(handles.semaphores[peer] +
                                           handles.index),
             before.signalled[peer], advance});
      if (uint32_t advance = handles.awaited[peer] - before.awaited[peer])
        graph.counters.push_back(
            {&handles.awaited[peer],
             reinterpret_cast<CUdeviceptr>(handles.semaphores[handles.index] +
                                           peer),
             before.awaited[peer], advance});
    }
    // In place: the counters point into these vectors.
    std::copy(before.signalled.begin(), before.signalled.end(),
              handles.signalled.begin());
    std::copy(before.awaited.begin(), before.awaited.end(),
              handles.awaited.begin());
    if (graph.counters.size() > counters) {
      graph.shares.push_back(before.share);
      ++before.share->graphs;
    }
  }
}

FuserStatus CudaBackend::inspectCapturedNodes(CudaGraph &graph) {
  const char *op = "graph_end_capture";
  std::map<CUdeviceptr, size_t> counterAt;
  uint32_t expected = 0;
  for (size_t index = 0; index < graph.counters.size(); ++index) {
    counterAt[graph.counters[index].semaphore] = index;
    expected += graph.counters[index].advance;
  }

  size_t count = 0;
  if (checkCuda(cudaGraphGetNodes(graph.graph, nullptr, &count), op,
                "cudaGraphGetNodes"))
    return FUSER_FAILED;
  std::vector<cudaGraphNode_t> nodes(count);
  if (checkCuda(cudaGraphGetNodes(graph.graph, nodes.data(), &count), op,
                "cudaGraphGetNodes"))
    return FUSER_FAILED;
  uint32_t found = 0;
  for (cudaGraphNode_t node : nodes) {
    CUgraphNodeType type;
    if (checkDriver(driver.graphNodeGetType(node, &type), op,
                    "cuGraphNodeGetType"))
      return FUSER_FAILED;
    if (type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
        type == CU_GRAPH_NODE_TYPE_MEM_FREE)
      return fail(std::string(op) +
                  ": the captured work allocates or frees memory inside the "
                  "graph (a stream-ordered allocation on a captured stream "
                  "outside the runtime's allocator); a graph replays on "
                  "buffers allocated once");
    if (type != CU_GRAPH_NODE_TYPE_BATCH_MEM_OP)
      continue;
    CudaGraph::MemOpNode memOps;
    memOps.node = node;
    if (checkDriver(driver.graphBatchMemOpNodeGetParams(node, &memOps.params),
                    op, "cuGraphBatchMemOpNodeGetParams"))
      return FUSER_FAILED;
    memOps.operations.assign(memOps.params.paramArray,
                             memOps.params.paramArray + memOps.params.count);
    bool ours = false;
    for (const CUstreamBatchMemOpParams &operation : memOps.operations) {
      CUdeviceptr address = 0;
      if (operation.operation == CU_STREAM_MEM_OP_WAIT_VALUE_32)
        address = operation.waitValue.address;
      else if (operation.operation == CU_STREAM_MEM_OP_WRITE_VALUE_32)
        address = operation.writeValue.address;
      auto counter = counterAt.find(address);
      // Operations on other memory are replayed as they are.
      memOps.counterOf.push_back(counter == counterAt.end()
                                     ? graph.counters.size()
                                     : counter->second);
      if (counter != counterAt.end()) {
        ours = true;
        ++found;
      }
    }
    if (ours)
      graph.memOpNodes.push_back(std::move(memOps));
  }
  if (found != expected)
    return fail(std::string(op) + ": the capture issued " +
                std::to_string(expected) +
                " IPC signals and waits but the graph holds " +
                std::to_string(found) +
                " stream memory operations on their semaphores; replays could "
                "not renumber them");
  return FUSER_OK;
}

FuserGraph *CudaBackend::endCapture() {
  const char *op = "graph_end_capture";
  if (!capture) {
    fail(std::string(op) + ": no capture is under way "
                           "(fuser_graph_begin_capture starts one)");
    return nullptr;
  }
  std::unique_ptr<Capture> ended = std::move(capture);
  auto graph = std::make_unique<CudaGraph>();
  graph->owner = this;
  graph->buffers = ended->buffers;
  cudaError_t endError = cudaStreamEndCapture(ended->stream, &graph->graph);
  // Reported below; later calls must not see it again.
  if (endError != cudaSuccess)
    cudaGetLastError();
  // Nothing ran: the counts are the ones from before, and the order of
  // signals starts afresh after the capture as it did before.
  takeCapturedCounters(*ended, *graph);
  forgetLastSignals();

  FuserStatus status = FUSER_OK;
  if (endError == cudaErrorStreamCaptureUnjoined)
    status = fail(std::string(op) +
                  ": work was issued on a stream that never rejoined the "
                  "captured stream (the captured stream must wait for every "
                  "stream it forked before the capture ends)");
  else if (endError == cudaErrorStreamCaptureInvalidated)
    status = fail(std::string(op) +
                  ": the capture was invalidated by a call that cannot be "
                  "captured (the first failure after "
                  "fuser_graph_begin_capture names it)");
  else
    status = checkCuda(endError, op, "cudaStreamEndCapture");
  if (!status)
    status = inspectCapturedNodes(*graph);
  if (!status)
    status = checkCuda(cudaGraphInstantiate(&graph->exec, graph->graph, 0), op,
                       "cudaGraphInstantiate");
  if (status) {
    std::string error = fuser_last_error();
    releaseGraph(*graph);
    fail(error);
    return nullptr;
  }
  graphs.push_back(std::move(graph));
  return graphs.back().get();
}

FuserStatus CudaBackend::renumberSemaphores(CudaGraph &graph) {
  std::vector<uint32_t> offsets;
  bool changed = false;
  for (const CudaGraph::Counter &counter : graph.counters) {
    offsets.push_back(*counter.count - counter.atCapture);
    changed |= offsets.back() != counter.applied;
  }
  if (!changed)
    return FUSER_OK;
  for (CudaGraph::MemOpNode &memOps : graph.memOpNodes) {
    std::vector<CUstreamBatchMemOpParams> operations = memOps.operations;
    for (size_t i = 0; i < operations.size(); ++i) {
      size_t counter = memOps.counterOf[i];
      if (counter == graph.counters.size())
        continue;
      if (operations[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_32)
        operations[i].waitValue.value += offsets[counter];
      else
        operations[i].writeValue.value += offsets[counter];
    }
    CUDA_BATCH_MEM_OP_NODE_PARAMS params = memOps.params;
    params.paramArray = operations.data();
    if (checkDriver(driver.graphExecBatchMemOpNodeSetParams(
                        graph.exec, memOps.node, &params),
                    "graph_launch", "cuGraphExecBatchMemOpNodeSetParams"))
      return FUSER_FAILED;
  }
  for (size_t i = 0; i < graph.counters.size(); ++i)
    graph.counters[i].applied = offsets[i];
  return FUSER_OK;
}

FuserStatus CudaBackend::launchGraph(FuserGraph &captured) {
  const char *op = "graph_launch";
  auto &graph = static_cast<CudaGraph &>(captured);
  if (capture)
    return fail(std::string(op) +
                ": a graph cannot be replayed while a capture is under way");
  if (renumberSemaphores(graph) ||
      checkCuda(cudaGraphLaunch(graph.exec, getStream()), op,
                "cudaGraphLaunch"))
    return FUSER_FAILED;
  for (CudaGraph::Counter &counter : graph.counters)
    *counter.count += counter.advance;
  return FUSER_OK;
}

void CudaBackend::releaseGraph(CudaGraph &graph) {
  // An executable graph still running is freed when it completes.
  if (graph.exec)
    cudaGraphExecDestroy(graph.exec);
  if (graph.graph)
    cudaGraphDestroy(graph.graph);
  graph.exec = nullptr;
  graph.graph = nullptr;
  for (void *buffer : graph.buffers) {
    auto found = allocations.find(buffer);
    if (found != allocations.end()) {
      liveDeviceBytes -= found->second.bytes;
      allocations.erase(found);
    }
    cudaFree(buffer);
  }
  graph.buffers.clear();
  for (IpcShare *share : graph.shares)
    --share->graphs;
  graph.shares.clear();
}

void CudaBackend::destroyGraph(FuserGraph *captured) {
  auto found = std::find_if(graphs.begin(), graphs.end(), [&](auto &graph) {
    return graph.get() == captured;
  });
  if (found == graphs.end())
    fuser_fail("graph_destroy: not a live graph of the CUDA backend");
  // Its buffers are freed once the replays are done (cudaFree would wait
  // for them without a bound). Work that never completes keeps them.
  if (!streamsFinish()) {
    abortCommunicators();
    fail("graph_destroy: the work issued before did not complete within " +
         describeTimeout() + "; the graph's buffers stay allocated");
    (*found)->buffers.clear();
  }
  releaseGraph(**found);
  graphs.erase(found);
}
