//===- LoadedObject.cpp - An object file linked into the process -*- C++
//-*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "LoadedObject.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"

#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"

namespace jit = mlir::sift::jit;
using llvm::Expected;
using llvm::StringRef;

jit::LoadedObject::~LoadedObject() {
  // As ~ExecutionEngine: the deinitializers, then the libraries' destroy
  // callbacks.
  if (jit && initialized && !jit->getTargetTriple().isAArch64())
    llvm::consumeError(jit->deinitialize(jit->getMainJITDylib()));
  for (auto destroy : destroyFns)
    destroy();
}

Expected<std::unique_ptr<jit::LoadedObject>>
jit::LoadedObject::create(llvm::ArrayRef<std::string> objects,
                          const std::vector<std::string> &sharedLibs,
                          bool perfListener) {
  std::unique_ptr<LoadedObject> result(new LoadedObject());
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  Expected<llvm::DataLayout> dataLayout =
      builder->getDefaultDataLayoutForTarget();
  if (!dataLayout)
    return dataLayout.takeError();

  // The libraries go into the process (RTLD_GLOBAL), where the process
  // symbol generator finds what they export; a library that implements the
  // ExecutionEngine's init/destroy protocol lists its symbols itself.
  llvm::StringMap<void *> exported;
  for (const std::string &path : sharedLibs) {
    std::string error;
    auto lib =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
    if (!lib.isValid())
      return llvm::createStringError("cannot load '" + path + "': " + error);
    void *init =
        lib.getAddressOfSymbol(mlir::ExecutionEngine::kLibraryInitFnName);
    void *destroy =
        lib.getAddressOfSymbol(mlir::ExecutionEngine::kLibraryDestroyFnName);
    if (!init || !destroy)
      continue;
    reinterpret_cast<mlir::ExecutionEngine::LibraryInitFn>(init)(exported);
    result->destroyFns.push_back(
        reinterpret_cast<mlir::ExecutionEngine::LibraryDestroyFn>(destroy));
  }

  if (perfListener)
    result->perf = llvm::JITEventListener::createPerfJITEventListener();
  llvm::JITEventListener *perf = result->perf;
  auto createLayer = [perf](llvm::orc::ExecutionSession &session)
      -> Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
    auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
        session, [](const llvm::MemoryBuffer &) {
          return std::make_unique<llvm::SectionMemoryManager>();
        });
    if (perf)
      layer->registerJITEventListener(*perf);
    const llvm::Triple &triple =
        session.getExecutorProcessControl().getTargetTriple();
    if (triple.isOSBinFormatCOFF()) {
      layer->setOverrideObjectFlagsWithResponsibilityFlags(true);
      layer->setAutoClaimResponsibilityForObjectSymbols(true);
    }
    return std::move(layer);
  };
  auto created = llvm::orc::LLJITBuilder()
                     .setJITTargetMachineBuilder(std::move(*builder))
                     .setDataLayout(*dataLayout)
                     .setObjectLinkingLayerCreator(createLayer)
                     .create();
  if (!created)
    return created.takeError();
  result->jit = std::move(*created);

  llvm::orc::JITDylib &main = result->jit->getMainJITDylib();
  auto processSymbols =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          dataLayout->getGlobalPrefix());
  if (!processSymbols)
    return processSymbols.takeError();
  main.addGenerator(std::move(*processSymbols));
  for (const std::string &object : objects)
    if (llvm::Error e = result->jit->addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(object, "sift-jit")))
      return std::move(e);
  if (llvm::Error e =
          result->registerSymbols([&](llvm::orc::MangleAndInterner mangle) {
            llvm::orc::SymbolMap map;
            for (auto &symbol : exported)
              map[mangle(symbol.getKey())] = {
                  llvm::orc::ExecutorAddr::fromPtr(symbol.getValue()),
                  llvm::JITSymbolFlags::Exported};
            return map;
          }))
    return std::move(e);
  return result;
}

llvm::Error jit::LoadedObject::registerSymbols(SymbolsFn symbols) {
  llvm::orc::JITDylib &main = jit->getMainJITDylib();
  // A function of the module with the name of one of them (a public
  // `func.func @memrefCopy`) is a duplicate definition: an error, not an
  // abort.
  if (llvm::Error e = main.define(
          llvm::orc::absoluteSymbols(symbols(llvm::orc::MangleAndInterner(
              main.getExecutionSession(), jit->getDataLayout())))))
    return llvm::createStringError(
        "the module defines a symbol that the sift runtime provides (" +
        llvm::toString(std::move(e)) + "): rename the function");
  return llvm::Error::success();
}

llvm::Error jit::LoadedObject::initialize() {
  if (initialized)
    return llvm::Error::success();
  // As ExecutionEngine::initialize, which skips AArch64 (llvm issue 71963).
  if (!jit->getTargetTriple().isAArch64())
    if (llvm::Error e = jit->initialize(jit->getMainJITDylib()))
      return e;
  initialized = true;
  return llvm::Error::success();
}

Expected<void (*)(void **)>
jit::LoadedObject::lookupPacked(StringRef name) const {
  auto symbol = jit->lookup(("_mlir_" + name).str());
  // As ExecutionEngine::lookup: the message is copied out of the JIT's
  // strings, so that the error may outlive it.
  if (!symbol)
    return llvm::createStringError(llvm::toString(symbol.takeError()));
  if (auto *fn = symbol->toPtr<void (*)(void **)>())
    return fn;
  return llvm::createStringError("looked up function is null");
}
