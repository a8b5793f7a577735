#pragma once

#include "CredCheckBase.h"

namespace clang::tidy::afunix {

struct PerOrigin; // the options and lifecycle calls that reach each origin

// afunix-passcred-too-late: SO_PASSCRED enabled after peers can already queue messages, which
// then carry pid=0 uid=65534 (Linux 3.2+): on an accept()ed socket whose listener lacks it before
// listen(), on a datagram socket after bind(), on a listener after listen() (6.16+), or on a
// socket the program inherited.
class PasscredTooLateCheck : public CredCheckBase {
public:
  using CredCheckBase::CredCheckBase;

protected:
  void checkModel(const SocketModel &model) override;

private:
  const PerOrigin *Index = nullptr; // valid during checkModel
  bool checkAccepted(const SocketModel &model, const OptionFact &option, unsigned origin);
  bool checkAfter(const SocketModel &model, const OptionFact &option, unsigned origin,
                  Lifecycle kind);
};

} // namespace clang::tidy::afunix
