#pragma once

#include "CredCheckBase.h"

namespace clang::tidy::afunix {

// afunix-creds-without-passcred: recvmsg() looks for SCM_CREDENTIALS (or reads a struct ucred out
// of the control data) on a socket that never gets SO_PASSCRED. The receiver's SO_PASSCRED gates
// delivery, so only an option on the reading socket, or on the listener an accepted socket
// inherits from, counts; the peer's does not.
class CredsWithoutPasscredCheck : public CredCheckBase {
public:
  using CredCheckBase::CredCheckBase;

protected:
  void checkModel(const SocketModel &model) override;
};

} // namespace clang::tidy::afunix
