#pragma once
// A sequence of launches recorded once as a CUDA graph and replayed: one launch instead of the
// hundreds of a V-cycle (docs/performance.md, "Graphs and programmatic dependent launches").

#include "device_memory.cuh"

#include <cuda_runtime.h>

namespace adimg {

/// What CudaBackend::replay keeps for one caller (a Multigrid's cycle). The first run goes
/// directly (it may allocate: scratch buffers, transposed bands); the second is captured as a
/// graph; later runs launch that graph. The body must use the same buffers every time.
class GraphRecording {
public:
    GraphRecording() = default;
    ~GraphRecording() {
        if (exec_) cudaGraphExecDestroy(exec_);
    }
    GraphRecording(const GraphRecording&) = delete;
    GraphRecording& operator=(const GraphRecording&) = delete;

    /// Runs `body` on `stream`, recorded if `graphs`, else always directly.
    template <class Body>
    void run(cudaStream_t stream, bool graphs, Body&& body) {
        if (calls_++ == 0 || !graphs) {
            body();
            return;
        }
        if (!exec_) {
            cudaGraph_t graph = nullptr;
            ADIMG_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
            try {
                body();
            } catch (...) {
                cudaStreamEndCapture(stream, &graph);
                if (graph) cudaGraphDestroy(graph);
                throw;
            }
            ADIMG_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
            const cudaError_t status = cudaGraphInstantiate(&exec_, graph, 0);
            cudaGraphDestroy(graph);
            ADIMG_CUDA_CHECK(status);
        }
        ADIMG_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
    }

private:
    int calls_ = 0;
    cudaGraphExec_t exec_ = nullptr;
};

}  // namespace adimg
